import { expect, it } from 'vitest';
import { ADMIN } from '../support/accounting.js';
import { expectErrorShape } from '../support/expect.js';
import type { RunningServer } from '../support/processes.js';
import { describeServed, integrityProblems, report, sleep, type HttpResponse } from '../support/reliability.js';
import { Workload, type Op } from '../support/reliability-workload.js';

const WORKERS = 4;
const KILLS = 8;
const BUDGET_MS = 40_000;
const REPLAY_SAMPLE = 60;

/**
 * Clients stream batch writes (value creates, updates, deletes, record ingestion, export results, review moves
 * in bulk, coding) at a
 * `node dist/server.js` that is killed with SIGKILL at random moments and started again. A request whose
 * answer was lost is resolved as a careful client would: look (directly in the database: all of it or none of
 * it is there), then retry with the same Idempotency-Key (a replay if it was there; 409 IDEMPOTENCY_KEY_IN_USE
 * while the dead request's claim holds, and then nothing is there; otherwise it runs now).
 */
describeServed('SIGKILL during batch writes', (t) => {
  it('keeps every acknowledged batch whole, no unacknowledged batch in part, and replays acknowledged keys', async () => {
    const served = t.served;
    let server: RunningServer = await served.start();
    let up: Promise<void> = Promise.resolve();
    const workloads: Workload[] = [];
    for (let w = 0; w < WORKERS; w++) {
      const api = await served.client(server.url, ADMIN);
      const remote = `crash-${w}`;
      workloads.push(new Workload(api, await api.newField({ name: `crash ${w}`, remote_id: remote }), remote, `w${w}`));
    }
    const figures = {
      kills: 0,
      requests: 0,
      acknowledged: 0,
      lost_answers: 0,
      replayed_after_crash: 0,
      in_use_after_crash: 0,
      ran_on_retry: 0,
      items_acknowledged: 0,
    };
    const acknowledged: { workload: Workload; op: Op; body: unknown }[] = [];
    const kinds: Partial<Record<Op['kind'], number>> = {};
    let stop = false;
    const started = Date.now();

    const send = async (workload: Workload, op: Op): Promise<HttpResponse | null> => {
      figures.requests++;
      try {
        return await workload.api.request(op.method, op.path, {
          body: op.body,
          headers: { 'idempotency-key': op.key },
        });
      } catch {
        return null; // the connection died with the server: the outcome is unknown
      }
    };

    /** Resolves a lost answer; returns the acknowledging answer, or null when the op is known not to have run. */
    const resolve = async (workload: Workload, op: Op): Promise<HttpResponse | null> => {
      for (;;) {
        figures.lost_answers++;
        await up;
        const before = await workload.applied(served.db, op);
        expect({ op: op.text, kind: op.kind, applied: before }).toEqual({
          op: op.text,
          kind: op.kind,
          applied: before === 0 ? 0 : op.targets.length,
        });
        const res = await send(workload, op);
        if (res === null) continue;
        if (before > 0) {
          expect(res.status, res.text).toBe(200);
          expect(res.headers['idempotent-replayed']).toBe('true');
          figures.replayed_after_crash++;
          return res;
        }
        if (res.status === 409) {
          expectErrorShape(res, 'IDEMPOTENCY_KEY_IN_USE');
          expect(await workload.applied(served.db, op)).toBe(0);
          figures.in_use_after_crash++;
          return null;
        }
        expect(res.status, res.text).toBe(200);
        expect(res.headers['idempotent-replayed']).toBeUndefined();
        figures.ran_on_retry++;
        return res;
      }
    };

    const work = async (workload: Workload) => {
      while (!stop) {
        const op = workload.next();
        let res = await send(workload, op);
        if (res === null) res = await resolve(workload, op);
        if (res === null) continue;
        expect(res.status, `${op.kind} ${res.text}`).toBe(200);
        workload.apply(op, res.body);
        acknowledged.push({ workload, op, body: res.body });
        figures.acknowledged++;
        kinds[op.kind] = (kinds[op.kind] ?? 0) + 1;
        figures.items_acknowledged += op.targets.length;
      }
    };

    const kill = async () => {
      while (!stop && figures.kills < KILLS && Date.now() - started < BUDGET_MS) {
        await sleep(150 + Math.random() * 650);
        let release!: () => void;
        up = new Promise((r) => (release = r));
        server.child.kill('SIGKILL');
        const exit = await server.exited;
        expect(exit.signal).toBe('SIGKILL');
        figures.kills++;
        expect(await integrityProblems(served.db)).toEqual([]);
        server = await served.start();
        for (const w of workloads) w.api.base = server.url;
        release();
      }
    };

    const stopOnFailure = (p: Promise<void>) =>
      p.catch((error: unknown) => {
        stop = true;
        throw error;
      });
    const killer = stopOnFailure(kill()).finally(() => (stop = true));
    await Promise.all([killer, ...workloads.map((w) => stopOnFailure(work(w)))]);

    // The review cycle ran: records were re-opened, coded and approved between kills.
    for (const kind of ['reopen', 'code', 'approve'] as const) expect(kinds[kind] ?? 0, kind).toBeGreaterThan(0);
    // A slow machine may restart the server slower than the time budget allows for all KILLS.
    expect(figures.kills).toBeGreaterThanOrEqual(KILLS / 2);
    expect(await integrityProblems(served.db)).toEqual([]);
    for (const workload of workloads) expect(await workload.stored(served.db)).toEqual(workload.expected());

    // Acknowledged keys replay their first answer, byte for byte as JSON, and change nothing.
    const step = Math.max(1, Math.floor(acknowledged.length / REPLAY_SAMPLE));
    const sample = acknowledged.filter((_, i) => i % step === 0);
    for (const { workload, op, body } of sample) {
      const res = await workload.api.request(op.method, op.path, {
        body: op.body,
        headers: { 'idempotency-key': op.key },
      });
      expect({ status: res.status, replayed: res.headers['idempotent-replayed'], body: res.body }).toEqual({
        status: 200,
        replayed: 'true',
        body,
      });
    }
    for (const workload of workloads) expect(await workload.stored(served.db)).toEqual(workload.expected());

    report(`crash [${t.dialect}]`, {
      ...figures,
      replays_checked: sample.length,
      ...Object.fromEntries(Object.entries(kinds).map(([kind, n]) => [`ack_${kind}`, n])),
      seconds: Math.round((Date.now() - started) / 1000),
    });
    expect(figures.acknowledged).toBeGreaterThan(KILLS);
    expect(figures.lost_answers).toBeGreaterThan(0);
  });
});
