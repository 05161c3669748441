import { log } from '../lib/context.js';
import { percentile, type Receiver } from '../lib/webhooks.js';
import { moveToReady, recordIds, seededWithReceiver, type AbScenario } from './scenario-parts.js';

/** Issue 34, item 4: events produced at this rate (moves of MOVE records, sent open-loop), as the bench's run does. */
const RATE = 500;
const MOVE = 25;
/** Delivered before the pairs, so that the first slice meets a delivery log that is not empty. */
const WARM = 2000;

/**
 * Webhooks under a steady production (`npm run bench:ab -- … --scenario webhooks-sustained --seconds 8`): RATE events a
 * second for the slice's seconds, each move sent at its time whatever the answers before it; the figure is the
 * events delivered a second from the first move to the last arrival (at most RATE: a side that keeps up reads about
 * RATE × seconds ÷ (seconds + its last delay)). One server at a time (`alone`): either's dispatcher would deliver
 * the other's events.
 */
export const webhooksSustained: AbScenario = {
  unit: 'events/s',
  alone: true,
  async setup(side, size, svc) {
    const receiver = await seededWithReceiver(side, size, svc, 'ab sustained');
    const ids = await recordIds(side, 'REVIEW', Math.max(20_000, size));
    const warm = ids.splice(0, WARM);
    for (let n = 0; n < warm.length; n += 1000) await moveToReady(side, warm.slice(n, n + 1000));
    await receiver.waitFor(warm.length, 300_000);
    return { receiver, ids };
  },
  async measure(side, made, seconds) {
    const { receiver, ids } = made as { receiver: Receiver; ids: string[] };
    const count = RATE * Math.max(1, Math.round(seconds));
    const mine = ids.splice(0, count);
    if (mine.length < count) throw new Error(`ab: too few records under review left (${mine.length} of ${count})`);
    receiver.reset();
    const everyMs = (1000 * MOVE) / RATE;
    const started = performance.now();
    const sent: Promise<unknown>[] = [];
    const committed = new Map<string, number>();
    for (let k = 0; k * MOVE < count; k++) {
      const wait = started + k * everyMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const ids = mine.slice(k * MOVE, (k + 1) * MOVE);
      sent.push(
        moveToReady(side, ids).then(() => {
          for (const id of ids) committed.set(id, performance.now());
        }),
      );
    }
    await Promise.all(sent);
    await receiver.waitFor(count, 300_000);
    const last = Math.max(...receiver.arrivals.map((a) => a.at));
    // The delay from the move's answer (an upper bound of its commit) to the arrival, for the log: the p99.
    const delays = receiver.arrivals.map(
      (a) => a.at - committed.get((JSON.parse(a.body) as { data: { id: string } }).data.id)!,
    );
    log(
      `webhooks-sustained: commit → delivery p50 ${percentile(delays, 50).toFixed(0)} ms, p99 ${percentile(delays, 99).toFixed(0)} ms`,
    );
    return { figure: count / ((last - started) / 1000), units: count };
  },
};
