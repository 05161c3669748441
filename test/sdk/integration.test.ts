import { setTimeout as sleep } from 'node:timers/promises';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { tempDir } from '../support/processes.js';
import { CEILING_MS } from '../support/wait.js';
import { describeLive, type LiveServer } from './live-server.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/svc.js', import.meta.url).pathname;

/** The n-th record of a batch: of this type and review state, of an amount from 10 to 99 USD. */
const record = (type: string, review_status: string, n: number) => ({
  type,
  review_status,
  amount: { amount: 10 + (n % 90), currency: 'USD' },
});

async function integrationEnv(live: LiveServer): Promise<{ env: NodeJS.ProcessEnv; admin: Api }> {
  const creds = await live.credentials(['accounting.record.read', 'accounting.record.write']);
  const admin = await live.ctx.as(['accounting.record.admin', 'accounting.record.read'], creds.accountId);
  return {
    admin,
    env: { ...process.env, SVC_URL: live.url, SVC_CLIENT_ID: creds.clientId, SVC_CLIENT_SECRET: creds.clientSecret },
  };
}

function lines(file: string): { id: string; version: number; review_status: string; source_type: string }[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

describeLive('svc poll and svc report, end to end', (s) => {
  it('polls what is ready, reports successes and failures, and polls only what changed since', async () => {
    const { env, admin } = await integrationEnv(s.live);
    const ready = await admin.newRecords(
      Array.from({ length: 12 }, (_, n) =>
        record(n % 3 ? 'CARD_EXPENSE_POST' : 'REIMBURSEMENT_EXPENSE_POST', 'READY_FOR_EXPORT', n),
      ),
    );
    const preparing = await admin.newRecords(
      Array.from({ length: 4 }, (_, n) => record('CARD_EXPENSE_POST', 'PREPARE', n)),
    );
    const bills = await admin.newRecords(
      Array.from({ length: 5 }, (_, n) => record('BILL_EXPENSE', n % 2 ? 'READY_FOR_EXPORT' : 'PREPARE', n)),
    );
    const dir = tempDir('svc-poll-');
    const poll = ['poll', '--once', '--checkpoint', `${dir}/cp.json`, '--out', `${dir}/out.ndjson`, '--page-size', '5'];

    await run(process.execPath, [BIN, ...poll], { env });
    const first = lines(`${dir}/out.ndjson`);
    expect(first.map((r) => r.id).sort()).toEqual([...ready, ...bills].map((r) => r.id).sort());

    const results = [
      ...ready.slice(0, 5).map((r) => ({
        accounting_record_id: r.id,
        success: { reference_id: `JE-${r.id}`, deep_link_url: 'https://erp.example/je' },
      })),
      ...ready
        .slice(5, 8)
        .map((r) => ({ accounting_record_id: r.id, failure: { error_message: 'Invalid GL account' } })),
      { accounting_record_id: 'accr_unknown', success: {} },
      { accounting_record_id: preparing[0]!.id, success: {} },
    ];
    fs.writeFileSync(`${dir}/results.ndjson`, results.map((r) => JSON.stringify(r)).join('\n'));
    const report = await run(process.execPath, [BIN, 'report', '--in', `${dir}/results.ndjson`], { env }).catch(
      (e: { code: number; stdout: string }) => e,
    );
    expect((report as { code?: number }).code).toBe(1);
    const printed = (report as { stdout: string }).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(printed.at(-1)).toEqual({ updated: 8, refused: 2 });
    expect(printed.filter((p) => p.updated === true).map((p) => p.accounting_record_id)).toEqual(
      ready.slice(0, 8).map((r) => r.id),
    );
    expect(printed.filter((p) => p.updated === false)).toEqual([
      { accounting_record_id: 'accr_unknown', error_code: 'NOT_FOUND', reason: expect.any(String), updated: false },
      {
        accounting_record_id: preparing[0]!.id,
        error_code: 'ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT',
        reason: expect.any(String),
        updated: false,
      },
    ]);
    for (const r of ready.slice(0, 5))
      expect((await admin.get(`/v3/accounting/records/${r.id}`)).body.review_status).toBe('EXPORTED');
    for (const r of ready.slice(5, 8))
      expect((await admin.get(`/v3/accounting/records/${r.id}`)).body.review_status).toBe('REVIEW');

    // Running the same report again replays: nothing moves.
    const again = await run(process.execPath, [BIN, 'report', '--in', `${dir}/results.ndjson`], { env }).catch(
      (e: { stdout: string }) => e,
    );
    expect((again as { stdout: string }).stdout.trim().split('\n').at(-1)).toBe(
      JSON.stringify({ updated: 8, refused: 2 }),
    );
    expect((await admin.get(`/v3/accounting/records/${ready[0]!.id}`)).body.version).toBe(ready[0]!.version + 1);

    // Nothing new is ready: the second pass writes nothing. Then a record becomes ready: only it comes.
    await run(process.execPath, [BIN, ...poll], { env });
    expect(lines(`${dir}/out.ndjson`)).toHaveLength(first.length);
    const moved = preparing[1]!;
    for (const [status, version] of [
      ['REVIEW', 1],
      ['READY_FOR_EXPORT', 2],
    ] as const) {
      const res = await admin.post(`/internal/v1/accounting/records/${moved.id}/review-status`, {
        review_status: status,
        version,
      });
      expect(res.status).toBe(200);
    }
    await run(process.execPath, [BIN, ...poll], { env });
    const third = lines(`${dir}/out.ndjson`).slice(first.length);
    expect(third.map((r) => [r.id, r.version, r.review_status])).toEqual([[moved.id, 3, 'READY_FOR_EXPORT']]);
  });

  // Seven or more `svc poll` processes, one after another: its ceiling is well above their pace on a loaded machine.
  it(
    'a poller killed with SIGKILL at random moments, while records keep coming, misses and repeats nothing',
    { timeout: 5 * CEILING_MS },
    async () => {
      const { env, admin } = await integrationEnv(s.live);
      const expected = new Set<string>();
      const add = (records: { id: string }[]) => records.forEach((r) => expected.add(r.id));
      add(
        await admin.newRecords(
          Array.from({ length: 1200 }, (_, n) =>
            record(n % 2 ? 'CARD_EXPENSE_POST' : 'REIMBURSEMENT_EXPENSE_APPROVAL', 'READY_FOR_EXPORT', n),
          ),
        ),
      );
      add(await admin.newRecords(Array.from({ length: 300 }, (_, n) => record('BILL_EXPENSE_PAYMENT', 'REVIEW', n))));
      await admin.newRecords(Array.from({ length: 100 }, (_, n) => record('CARD_PAYMENT', 'REVIEW', n))); // not to be polled

      const dir = tempDir('svc-poll-');
      const args = [
        BIN,
        'poll',
        '--once',
        '--checkpoint',
        `${dir}/cp.json`,
        '--out',
        `${dir}/out.ndjson`,
        '--page-size',
        '25',
      ];
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing && i < 40; i++) {
          add(
            await admin.newRecords(
              Array.from({ length: 10 }, (_, n) =>
                record(n % 2 ? 'BILL_EXPENSE' : 'CARD_EXPENSE_REFUND', 'READY_FOR_EXPORT', n),
              ),
            ),
          );
          await sleep(20);
        }
      })();

      // Each of the first six passes is killed in the middle of its work: once it has written a page since it began
      // (a moment of its own, however slowly the machine runs it), and a random few milliseconds later.
      const written = () => (fs.existsSync(`${dir}/out.ndjson`) ? fs.statSync(`${dir}/out.ndjson`).size : 0);
      let kills = 0;
      for (let attempt = 0; attempt < 60; attempt++) {
        const before = written();
        const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
        let ended = false;
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))).finally(
          () => (ended = true),
        );
        if (kills < 6) {
          while (!ended && written() <= before) await sleep(5);
          await sleep(Math.random() * 20);
          if (!ended) child.kill('SIGKILL');
        }
        const code = await exited;
        if (code === 0 && kills >= 6) {
          writing = false;
          await writer;
          // One last complete pass after the writers stopped picks up the tail.
          const last = await new Promise<number | null>((resolve) =>
            spawn(process.execPath, args, { env, stdio: 'ignore' }).once('exit', resolve),
          );
          expect(last).toBe(0);
          break;
        }
        if (code !== 0) kills++;
      }
      expect(kills).toBeGreaterThanOrEqual(6);

      const polled = lines(`${dir}/out.ndjson`);
      const keys = polled.map((r) => `${r.id}@${r.version}`);
      expect(new Set(keys).size).toBe(keys.length); // nothing repeated
      expect(new Set(polled.map((r) => r.id))).toEqual(expected); // nothing missed, nothing extra
    },
  );
});
