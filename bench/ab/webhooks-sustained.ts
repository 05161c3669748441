import { log } from '../lib/context.js';
import { deliveryFigures, type Receiver } from '../lib/webhooks.js';
import { moveToReady, recordIds, seededWithReceiver, type AbScenario } from './scenario-parts.js';

/** Issue 34, item 4: events produced at this rate (moves of MOVE records, sent open-loop), as the bench's run does. */
const RATE = 500;
const MOVE = 25;
/** Delivered before the pairs, so that the first slice meets a delivery log that is not empty. */
const WARM = 2000;

/**
 * Webhooks under a steady production (`npm run bench:ab -- … --scenario webhooks-sustained --seconds 10 --pairs 4
 * --size 300000`: 2,000 + 8 × 5,000 records under review): RATE events a second for the slice's seconds, each move
 * sent at its time whatever the answers before it. The figure is the events delivered a second from the first move
 * to the last arrival: about RATE for a side that keeps up (the last move is sent MOVE ÷ RATE of a second before the
 * slice ends). The log has each slice's commit → delivery p50 and p99. One server at a time (`alone`): either's
 * dispatcher would deliver the other's events.
 */
export const webhooksSustained: AbScenario = {
  unit: 'events/s',
  alone: true,
  async setup(side, size, svc) {
    const { receiver, secret } = await seededWithReceiver(side, size, svc, 'ab sustained');
    const ids = await recordIds(side, 'REVIEW', Math.max(20_000, size));
    const warm = ids.splice(0, WARM);
    for (let n = 0; n < warm.length; n += 1000) await moveToReady(side, warm.slice(n, n + 1000));
    await receiver.waitFor(warm.length, 300_000);
    return { receiver, secret, ids };
  },
  async measure(side, made, seconds) {
    const { receiver, secret, ids } = made as { receiver: Receiver; secret: string; ids: string[] };
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
    // Off the clock: every delivery verified, each record's first arrival once, and the delay from its move's answer
    // (an upper bound of its commit) to that arrival: the p99, for the log.
    const figures = await deliveryFigures(secret, receiver.arrivals, committed);
    log(
      `webhooks-sustained: ${figures.delivered} delivered (${figures.duplicates} twice), commit → delivery p50 ${figures.p50.toFixed(0)} ms, p99 ${figures.p99.toFixed(0)} ms`,
    );
    return { figure: count / ((last - started) / 1000), units: count };
  },
};
