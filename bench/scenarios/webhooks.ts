import { randomUUID } from 'node:crypto';
import { call } from '../lib/api.js';
import { log, type Bench, type Client } from '../lib/context.js';
import { deliveryFigures, senderFloor, startReceiver } from '../lib/webhooks.js';

/**
 * Webhooks (issue 20): events delivered per second to a local receiver, and the delay from commit to delivery.
 * The receiver (node:http in this process) is subscribed to ready_for_export through the API; records are then
 * moved to READY_FOR_EXPORT through the API, first one per request (2 at a time: the delay of a steady
 * trickle), then in moves of 1000 (a backlog: the delivery rate). A record's commit time is when the API
 * answered its move, an upper bound of the commit (the answer follows it), so the delays are lower bounds by
 * at most the answer's way back over loopback. Every delivery is verified with the SDK's verifyWebhook
 * afterwards, off the clock.
 */
export async function webhookScenarios(b: Bench, client: Client): Promise<void> {
  const { quick } = b.settings;
  const internal = `${b.server.url}/internal/v1`;
  const trickle = quick ? 200 : 1000;
  const backlogBatches = quick ? 1 : 3;
  // Issue 34, item 4: events produced at a steady rate for a while, each delay read (moves of 25 records, 20 a second).
  const sustained = { rate: 500, seconds: quick ? 6 : 60, perMove: 25 };
  const needed = trickle + backlogBatches * 1000;
  const wanted = needed + sustained.rate * sustained.seconds;
  const toMove: string[] = [];
  let rc: string | null = null;
  do {
    const page: { items: { id: string }[]; next_cursor: string | null } = await call(
      `${internal}/accounting/records?review_status=REVIEW&limit=500${rc ? `&cursor=${rc}` : ''}`,
      { token: client.bearer },
    );
    toMove.push(...page.items.map((r) => r.id));
    rc = toMove.length >= wanted ? null : page.next_cursor;
  } while (rc);
  if (toMove.length < needed) {
    throw new Error(`webhooks: too few records under review (${toMove.length})`);
  }
  const receiver = await startReceiver();
  try {
    const backlog = backlogBatches * 1000;
    const floorRate = await senderFloor(receiver.url, backlog);
    receiver.reset();
    b.add({
      name: `floor: ${backlog} signed POSTs to the receiver by the server's sender, 8 at a time, no database`,
      unit: 'events/s',
      throughput: floorRate,
    });
    const hook: { id: string; secret: string } = await call(`${b.server.url}/v1/webhooks`, {
      method: 'POST',
      token: client.bearer,
      body: { url: receiver.url, event_types: ['accounting_record.ready_for_export'], description: 'bench' },
      headers: { 'idempotency-key': randomUUID() },
    });
    const move = async (ids: string[]): Promise<{ sent: number; answered: number }> => {
      const sent = performance.now();
      await call(`${internal}/accounting/records/review-status`, {
        method: 'POST',
        token: client.bearer,
        body: { review_status: 'READY_FOR_EXPORT', records: ids.map((id) => ({ id })) },
      });
      return { sent, answered: performance.now() };
    };

    const trickleIds = toMove.slice(0, trickle);
    const trickleCommits = new Map<string, number>();
    let answerMs = 0;
    let nextId = 0;
    const mover = async () => {
      while (nextId < trickleIds.length) {
        const id = trickleIds[nextId++]!;
        const t = await move([id]);
        trickleCommits.set(id, t.answered);
        answerMs += t.answered - t.sent;
      }
    };
    await Promise.all([mover(), mover()]);
    await receiver.waitFor(trickle, 120_000);
    const steady = await deliveryFigures(hook.secret, receiver.arrivals, trickleCommits);
    receiver.reset();
    log(
      `webhooks, one record per move: ${steady.delivered} delivered and verified (${steady.duplicates} twice), delay max ${steady.max.toFixed(0)} ms; a move took ${(answerMs / trickle).toFixed(1)} ms on average from request to answer`,
    );

    const backlogIds = toMove.slice(trickle, trickle + backlog);
    const backlogCommits = new Map<string, number>();
    for (let n = 0; n < backlogBatches; n++) {
      const ids = backlogIds.slice(n * 1000, n * 1000 + 1000);
      const t = await move(ids);
      for (const id of ids) backlogCommits.set(id, t.answered);
    }
    await receiver.waitFor(backlog, 120_000);
    const burst = await deliveryFigures(hook.secret, receiver.arrivals, backlogCommits);
    log(
      `webhooks, ${backlogBatches} move${backlogBatches === 1 ? '' : 's'} of 1000: ${burst.delivered} delivered and verified (${burst.duplicates} twice), delay max ${burst.max.toFixed(0)} ms`,
    );
    const ms = (x: number) => Math.round(x * 10) / 10;
    b.add({
      name: `webhooks: ${steady.delivered} events to a local receiver, one record moved per request, 2 at a time (p50/p99: commit to delivery)`,
      unit: 'events/s',
      throughput: steady.rate,
      p50: ms(steady.p50),
      p99: ms(steady.p99),
      noFloor: true,
      reported: true,
    });
    b.add({
      name: `webhooks: ${burst.delivered} events to a local receiver, ${backlogBatches} move${backlogBatches === 1 ? '' : 's'} of 1000 records at once (p50/p99: commit to delivery, the queue included)`,
      unit: 'events/s',
      throughput: burst.rate,
      p50: ms(burst.p50),
      p99: ms(burst.p99),
      floor: floorRate,
      floorName: 'sender',
      reported: true,
    });
    receiver.reset();

    // Open loop: move k is sent at its time whatever the answers before it, so a slow server meets its load. As many
    // seconds as the records under review left allow (the other scenarios move some: a quick run has none left).
    const seconds = Math.min(sustained.seconds, Math.floor((toMove.length - needed) / sustained.rate));
    if (seconds < 1) {
      log(`webhooks, ${sustained.rate} events/s: not run, ${toMove.length - needed} records under review left`);
      return;
    }
    const sustainedCount = sustained.rate * seconds;
    const sustainedIds = toMove.slice(needed, needed + sustainedCount);
    const sustainedCommits = new Map<string, number>();
    const moves = sustainedCount / sustained.perMove;
    const everyMs = (1000 * sustained.perMove) / sustained.rate;
    const start = performance.now();
    const sent: Promise<void>[] = [];
    for (let k = 0; k < moves; k++) {
      const wait = start + k * everyMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const ids = sustainedIds.slice(k * sustained.perMove, (k + 1) * sustained.perMove);
      sent.push(
        move(ids).then((t) => {
          for (const id of ids) sustainedCommits.set(id, t.answered);
        }),
      );
    }
    await Promise.all(sent);
    const produced = sustainedCount / ((Math.max(...sustainedCommits.values()) - start) / 1000);
    await receiver.waitFor(sustainedCount, 180_000);
    const steadyRate = await deliveryFigures(hook.secret, receiver.arrivals, sustainedCommits);
    log(
      `webhooks, ${sustained.rate} events/s for ${seconds} s: produced at ${produced.toFixed(0)} events/s (the moves' answers), ${steadyRate.delivered} delivered and verified (${steadyRate.duplicates} twice), delay p99 ${steadyRate.p99.toFixed(0)} ms, max ${steadyRate.max.toFixed(0)} ms`,
    );

    b.add({
      name: `webhooks: ${sustained.rate} events/s produced for ${seconds} s (moves of ${sustained.perMove} records, ${1000 / everyMs} a second; produced at ${produced.toFixed(0)}/s as the moves were answered), ${steadyRate.delivered} delivered (p50/p99: commit to delivery)`,
      unit: 'events/s',
      throughput: steadyRate.rate,
      p50: ms(steadyRate.p50),
      p99: ms(steadyRate.p99),
      noFloor: true,
      targetP99: 1000,
    });
  } finally {
    await receiver.close();
  }
}
