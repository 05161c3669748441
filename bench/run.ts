/**
 * `npm run bench [-- --db postgres] [-- --values N --records N --duration S --quick --no-docs]`
 * `npm run bench -- --scaling [--db postgres ...]`: WORKERS=1 against every core, beside the floor's scaling
 * (bench/scenarios/scaling.ts; issue 15). It writes bench/results/<date>-<db>-scaling.json and .md only.
 * `npm run bench -- --webhooks-tarpit [--db postgres] [--quick]`: one account's webhook deliveries beside another's
 * tarpit endpoints (bench/scenarios/webhooks-tarpit.ts; issue 28). It writes
 * bench/results/<date>-<db>-webhooks-tarpit.json and .md only.
 * `npm run bench -- --backup [--db postgres] [--quick] [--no-docs]`: svc backup and restore beside a raw copy (SQLite)
 * or bare pg_dump/pg_restore (PostgreSQL), and reads while a backup runs (bench/scenarios/backup.ts; issue 35). It
 * writes bench/results/<date>-<db>-backup.json and .md and the <db>-backup block of docs/performance.md.
 * `npm run bench -- --receipts [--db postgres] [--quick] [--no-docs]`: 1 MB receipt uploads beside the raw write
 * floor of the same storage, and the server's RSS while 100 downloads of 10 MB receipts run
 * (bench/scenarios/receipts.ts; issue 32). It writes bench/results/<date>-<db>-receipts.json and .md and the
 * <db>-receipts block of docs/performance.md.
 *
 * Measures svc as an operator would: the real server in one child process, load from autocannon over
 * loopback on the same machine, 1,000,000 field values in one field and 1,000,000 accounting records. Every
 * scenario is printed with its floor from the same run and its target as a ratio to it (issue 16): a bare
 * Fastify route for request rates, and data floors (the SQL the request ran, captured from a second server and
 * run again through the bare driver, plus JSON.stringify of its answer: bench/lib/capture.ts, data-floor.ts) for
 * pages, polls, queries, creates and export results. Results go to bench/results/<date>.json and .md;
 * docs/performance.md is rewritten with the latest table (not with --no-docs).
 *
 * The scenarios live in bench/scenarios/; this file reads the arguments and runs them in their order.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { database, log, recorder, startBench, type Settings } from './lib/context.js';
import { writeReport } from './lib/report.js';
import { backupBench } from './scenarios/backup.js';
import { receiptsBench } from './scenarios/receipts.js';
import { codingScenarios, GROUPS, type Group } from './scenarios/coding.js';
import { httpFloor } from './scenarios/http-floor.js';
import { recordScenarios } from './scenarios/records.js';
import { reviewScenarios } from './scenarios/review.js';
import { scaling } from './scenarios/scaling.js';
import { seedAndRestart } from './scenarios/seed.js';
import { tokenScenario } from './scenarios/token.js';
import { readValues } from './scenarios/values-read.js';
import { createValues, updateValues } from './scenarios/values-write.js';
import { webhooksTarpit } from './scenarios/webhooks-tarpit.js';
import { webhookScenarios } from './scenarios/webhooks.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    values: { type: 'string' },
    records: { type: 'string' },
    duration: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'no-docs': { type: 'boolean', default: false },
    scaling: { type: 'boolean', default: false },
    'webhooks-tarpit': { type: 'boolean', default: false },
    backup: { type: 'boolean', default: false },
    receipts: { type: 'boolean', default: false },
    only: { type: 'string' },
    'pg-url': {
      type: 'string',
      default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const quick = args.quick;
// --scaling starts four server sets per pass, twice: smaller databases keep it to a few minutes.
const size = quick ? 20_000 : args.scaling ? 100_000 : 1_000_000;
const settings: Settings = {
  root: path.resolve(path.dirname(new URL(import.meta.url).pathname), '..'),
  port: 18_000 + Math.floor(Math.random() * 1000),
  dialect: args.db === 'postgres' ? 'postgres' : 'sqlite',
  pgUrl: args['pg-url']!,
  quick,
  values: Number(args.values ?? size),
  records: Number(args.records ?? size),
  duration: Number(args.duration ?? (quick ? 3 : 10)),
};

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: settings.root, stdio: 'inherit' });
  if (args.scaling) return scaling(settings);
  if (args['webhooks-tarpit']) return webhooksTarpit(settings);
  if (args.backup) return backupBench(settings, !args['no-docs']);
  if (args.receipts) return receiptsBench(settings, !args['no-docs']);
  if (args.only !== undefined) return only(args.only);
  const rec = recorder();
  const floorLoad = await httpFloor(settings, rec);

  const db = await database(settings);
  // One process: the figures (and the RSS read from the child) are one server's. Its webhooks may go to the
  // bench's receiver on 127.0.0.1 (plain http, a loopback address: an operator's setting, docs/webhooks.md).
  const env = {
    DATABASE_URL: db.url,
    RATE_LIMIT_MAX: '0',
    TOKEN_RATE_LIMIT_MAX: '0',
    LOG_LEVEL: 'warn',
    WORKERS: '1',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  };
  try {
    const b = await startBench(settings, db.url, env, rec);
    const first = await b.client();
    const field = await createValues(b, first);
    const pointLoad = await readValues(b, first, field, floorLoad);
    await updateValues(b, first, field);
    const seeded = await seedAndRestart(b);
    const client = await b.client();
    await recordScenarios(b, client);
    await reviewScenarios(b, client, seeded);
    await tokenScenario(b, floorLoad, pointLoad);
    await webhookScenarios(b, client);
    b.add({ name: 'server RSS, highest seen', unit: 'MB', throughput: b.maxRssMb(), targetMax: 300 });
    await b.stop();
  } finally {
    await db.drop();
  }
  const sizes = { values: settings.values, records: settings.records, duration: settings.duration };
  const files = writeReport(settings.root, settings.dialect, sizes, rec.scenarios, !args['no-docs']);
  log(`wrote ${files.join(', ')}`);
}

/**
 * `--only rules,suggestions` (or `ingest-rules`, `apply-rules`, `suggestions`; `rules` is both rule groups): issue
 * 30's coding scenarios alone on a new database (bench/scenarios/coding.ts), a few minutes instead of the full run.
 * Writes bench/results/<date>-<db>-coding.json|md and the dialect's coding block of docs/performance.md.
 */
async function only(list: string): Promise<void> {
  const asked = list.split(',').flatMap((g): string[] => (g === 'rules' ? ['ingest-rules', 'apply-rules'] : [g]));
  const unknown = asked.filter((g) => !(GROUPS as readonly string[]).includes(g));
  if (unknown.length > 0) throw new Error(`--only: unknown ${unknown.join(', ')} (rules, ${GROUPS.join(', ')})`);
  const groups = GROUPS.filter((g: Group) => asked.includes(g));
  const rec = recorder();
  const db = await database(settings);
  const env = { DATABASE_URL: db.url, RATE_LIMIT_MAX: '0', TOKEN_RATE_LIMIT_MAX: '0', LOG_LEVEL: 'warn', WORKERS: '1' };
  try {
    const b = await startBench(settings, db.url, env, rec);
    try {
      await codingScenarios(b, groups);
      b.add({ name: 'server RSS, highest seen', unit: 'MB', throughput: b.maxRssMb(), targetMax: 300 });
    } finally {
      await b.stop();
    }
  } finally {
    await db.drop();
  }
  const sizes = quick
    ? { 'records under review (apply)': 2000, 'approved records (suggestions)': 20_000 }
    : { 'records under review (apply)': 10_000, 'approved records (suggestions)': 100_000 };
  const files = writeReport(settings.root, settings.dialect, sizes, rec.scenarios, !args['no-docs'], 'coding');
  log(`wrote ${files.join(', ')}`);
}

await main();
