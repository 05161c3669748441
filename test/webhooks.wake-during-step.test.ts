import { expect, it, onTestFinished, vi } from 'vitest';
import { deliveriesRepository } from '../src/modules/webhooks/deliveries.repository.js';
import { createDispatcher } from '../src/modules/webhooks/webhooks.dispatcher.js';
import { describeEachDialect } from './support/context.js';

/**
 * A wake that comes while a step runs (webhooks.dispatcher.ts, `rung`): that step may have read before what woke it
 * was committed, so the loop steps again right after it instead of pausing. With an idle pause of an hour, a loop
 * that paused would step once.
 */
describeEachDialect('a webhook dispatcher woken during a step', (t) => {
  it('steps again right after the step, then waits', async () => {
    const dispatcher = createDispatcher({ db: t.ctx.db, allowPrivateTargets: true, idleMs: 3_600_000 });
    dispatcher.start();
    onTestFinished(() => dispatcher.stop());
    await dispatcher.whenIdle();

    // Each step asks first whether there is work: the first ask of the steps below rings again, mid-step.
    const real = deliveriesRepository.hasWork.bind(deliveriesRepository);
    const asked = vi.spyOn(deliveriesRepository, 'hasWork');
    onTestFinished(() => asked.mockRestore());
    let rungOnce = false;
    asked.mockImplementation(async (...args) => {
      if (!rungOnce) {
        rungOnce = true;
        dispatcher.wake();
      }
      return real(...args);
    });

    dispatcher.wake();
    await dispatcher.whenIdle();
    // The woken step, then the step the wake during it asked for; then the loop waits (nothing to do).
    expect(asked).toHaveBeenCalledTimes(2);
  });
});
