import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, token } from '../lib/api.js';
import { ALL_SCOPES, database, log, svc, type Credentials, type Settings } from '../lib/context.js';
import { serve } from '../lib/processes.js';
import { machine } from '../lib/report.js';
import { deliveryFigures, startReceiver, startTarpit, type DeliveryFigures, type Receiver } from '../lib/webhooks.js';

/** Events a second that each account's writer commits (B's are measured; A's keep its tarpits busy). */
const RATE = 10;
/** A's endpoints, every one a tarpit: as many as an account may have. */
const TARPITS = 20;
const TARGET_P99_MS = 2000;

interface Phase {
  name: string;
  figures: DeliveryFigures;
  /** B's commits: how many, and the API's answer time (p50), ms */
  events: number;
  answerP50: number;
}

const loadText = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

/**
 * One ready-for-export record of the client's account a commit, `RATE` a second for `seconds`, each sent on its
 * schedule whatever the answers before it (an open loop: a slow answer does not slow the next commit). Answers
 * each record's commit time (when the API answered: an upper bound of the commit) and the answers' times.
 */
async function writer(
  base: string,
  bearer: string,
  seconds: number,
  stop?: () => boolean,
): Promise<{ committed: Map<string, number>; answers: number[] }> {
  const committed = new Map<string, number>();
  const answers: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < seconds * RATE && !stop?.(); i++) {
    const due = start + (i * 1000) / RATE;
    if (due > performance.now()) await sleep(due - performance.now());
    pending.push(
      (async () => {
        const sent = performance.now();
        const answer: { items: { id: string }[] } = await call(`${base}/internal/v1/accounting/records`, {
          method: 'POST',
          token: bearer,
          body: {
            items: [
              {
                type: 'CARD_EXPENSE_POST',
                review_status: 'READY_FOR_EXPORT',
                amount: { amount: 12.5, currency: 'USD' },
                posted_at: '2026-11-20T09:00:00Z',
              },
            ],
          },
        });
        const at = performance.now();
        committed.set(answer.items[0]!.id, at);
        answers.push(at - sent);
      })(),
    );
  }
  await Promise.all(pending);
  return { committed, answers };
}

async function measure(
  name: string,
  base: string,
  b: { bearer: string; secret: string },
  receiver: Receiver,
  seconds: number,
): Promise<Phase> {
  receiver.reset();
  const { committed, answers } = await writer(base, b.bearer, seconds);
  await receiver.waitFor(committed.size, 120_000);
  const figures = await deliveryFigures(b.secret, receiver.arrivals, committed);
  const sorted = [...answers].sort((x, y) => x - y);
  const phase = { name, figures, events: committed.size, answerP50: sorted[Math.floor(sorted.length / 2)] ?? NaN };
  log(
    `webhooks-tarpit, ${name}: ${figures.delivered} of B's events delivered and verified (${figures.duplicates} twice), commit → delivery p50 ${figures.p50.toFixed(0)} ms, p99 ${figures.p99.toFixed(0)} ms, max ${figures.max.toFixed(0)} ms`,
  );
  return phase;
}

/**
 * `npm run bench -- --webhooks-tarpit [--db postgres] [--quick] [--duration S]` (issue 28): the real server (one
 * process, its own dispatcher), account B with one endpoint on a receiver that answers at once, account A with its
 * 20 endpoints on tarpits (accept, never answer: each attempt lasts the 10 s timeout). B commits RATE events a
 * second, and the delay from each commit (the API's answer) to its delivery at the receiver is measured: first
 * with A idle and no tarpit, then while A commits RATE events a second of its own for its tarpits. Target: B's p99
 * ≤ 2 s beside the tarpits. Writes bench/results/<date>-<db>-webhooks-tarpit.json and .md.
 */
export async function webhooksTarpit(settings: Settings): Promise<void> {
  const seconds = settings.quick ? 15 : Math.max(30, settings.duration * 6);
  const loadBefore = loadText();
  const db = await database(settings);
  const env = {
    DATABASE_URL: db.url,
    RATE_LIMIT_MAX: '0',
    TOKEN_RATE_LIMIT_MAX: '0',
    LOG_LEVEL: 'warn',
    WORKERS: '1',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  };
  const receiver = await startReceiver();
  const tarpit = await startTarpit();
  try {
    const creds = (account: string) =>
      JSON.parse(
        svc(settings.root, ['clients', 'create', '--account', account, '--scopes', ALL_SCOPES], env),
      ) as Credentials;
    const credsA = creds('tarpit-a');
    const credsB = creds('receiver-b');
    const server = await serve([path.join(settings.root, 'dist/server.js')], env, settings.port);
    try {
      const base = server.url;
      const bearerA = await token(base, credsA.client_id, credsA.client_secret);
      const bearerB = await token(base, credsB.client_id, credsB.client_secret);
      const subscribe = (bearer: string, url: string) =>
        call<{ id: string; secret: string }>(`${base}/v1/webhooks`, {
          method: 'POST',
          token: bearer,
          body: { url, event_types: ['accounting_record.ready_for_export'] },
        });
      const b = { bearer: bearerB, secret: (await subscribe(bearerB, receiver.url)).secret };

      const alone = await measure('without tarpits (A idle)', base, b, receiver, seconds);

      for (let i = 0; i < TARPITS; i++) await subscribe(bearerA, `${tarpit.url}/a/${i}`);
      let stopA = false;
      const aWriter = writer(base, bearerA, seconds * 10, () => stopA);
      // A's tarpits hold their places before B's clock starts.
      while (tarpit.held() < 8) await sleep(50);
      const beside = await measure(`beside A's ${TARPITS} tarpit endpoints`, base, b, receiver, seconds);
      stopA = true;
      const a = await aWriter;
      const tarpits = { accepted: tarpit.accepted(), mostHeld: tarpit.mostHeld(), aEvents: a.committed.size };
      log(
        `webhooks-tarpit: A committed ${tarpits.aEvents} events for its tarpits; the tarpits accepted ${tarpits.accepted} connections, at most ${tarpits.mostHeld} at once`,
      );
      writeTarpitReport(settings, [alone, beside], tarpits, { before: loadBefore, after: loadText() }, seconds);
    } finally {
      await server.stop();
    }
  } finally {
    await tarpit.close();
    await receiver.close();
    await db.drop();
  }
}

function writeTarpitReport(
  settings: Settings,
  phases: Phase[],
  tarpits: { accepted: number; mostHeld: number; aEvents: number },
  load: { before: string; after: string },
  seconds: number,
): void {
  const date = new Date().toISOString();
  const stamp = date.replace(/[:.]/g, '-');
  const dir = path.join(settings.root, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const base = path.join(dir, `${stamp}-${settings.dialect}-webhooks-tarpit`);
  const ms = (x: number) => Math.round(x);
  const beside = phases.at(-1)!;
  const verdict = beside.figures.p99 <= TARGET_P99_MS ? 'met' : 'missed';
  fs.writeFileSync(
    `${base}.json`,
    JSON.stringify(
      { date, dialect: settings.dialect, machine: machine(), load, seconds, rate: RATE, phases, tarpits },
      null,
      2,
    ),
  );
  const rows = phases.map(
    (p) =>
      `| B, ${p.name} | ${p.events} | ${ms(p.figures.p50)} | ${ms(p.figures.p99)} | ${ms(p.figures.max)} | ${ms(p.answerP50)} |`,
  );
  fs.writeFileSync(
    `${base}.md`,
    [
      `## ${settings.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite'} — ${date.slice(0, 10)}, webhooks beside tarpits`,
      '',
      `Machine: ${machine()}. Load average (1/5/15 min) before: ${load.before}; after: ${load.after}. ${RATE} events/s of B's for ${seconds} s a phase; A's ${TARPITS} endpoints are tarpits, A commits ${RATE} events/s of its own during the second phase (${tarpits.aEvents} events; the tarpits accepted ${tarpits.accepted} connections, at most ${tarpits.mostHeld} at once).`,
      '',
      '| phase | B events | p50 ms | p99 ms | max ms | API answer p50 ms |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      `Target: B's p99 ≤ ${TARGET_P99_MS} ms beside the tarpits: ${verdict}.`,
      '',
    ].join('\n'),
  );
  log(
    `webhooks-tarpit: B's p99 beside the tarpits ${ms(beside.figures.p99)} ms (target ≤ ${TARGET_P99_MS}): ${verdict}`,
  );
  log(`wrote ${base}.json, ${base}.md`);
}
