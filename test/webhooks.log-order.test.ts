import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { attemptsOf, DELIVERY_SCOPES, startReceiver, subscribe, testDispatcher } from './support/webhooks.js';

/**
 * Issue 36, 5: the delivery log is documented newest first by attempt time, but it came in the order attempts ended:
 * when two overlap, the one made first and answered last was listed first. An attempt is now named as it starts.
 */
describeEachDialect(
  'the delivery log of overlapping attempts',
  (t) => {
    it('lists attempts newest first by when they were made, not by when they ended', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      const hook = await subscribe(api, receiver.url);
      // The first request the receiver gets is never answered (the attempt ends at the dispatcher's timeout); the
      // second is answered at once: the first attempt made is the last to end.
      receiver.plan(['hang', 'ok']);
      await api.readyRecord();
      await api.readyRecord();
      const dispatcher = testDispatcher(t.ctx.db, { timeoutMs: 2000 });
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 2, delivered: 1 });

      const log: { attempted_at: string; status_code: number | null; error: string | null }[] = await attemptsOf(
        api,
        hook.id,
      );
      expect(log).toHaveLength(2);
      const made = log.map((a) => a.attempted_at);
      expect(made).toEqual([...made].sort().reverse());
      // The one made first is the one that hung, and it is listed last though it ended last.
      expect(log[1]!.status_code).toBeNull();
      expect(log[1]!.error).toBe('no answer within 2 s');
      expect(log[0]!.status_code).toBe(200);
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
