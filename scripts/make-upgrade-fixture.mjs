#!/usr/bin/env node
/**
 * Makes an upgrade fixture from a past commit (a "release") of svc: test/fixtures/upgrades/<short>/ with
 *   database.sqlite  the release's own SQLite database (VACUUM INTO: compact, one file, no WAL),
 *   answers.json     what that release's API answered, read after the writes (method, path, query, status, body),
 *   cli.json         what that release's CLI printed of the account's API clients and console users,
 *   manifest.json    the commit, its migrations, this script's version, the account and its API client.
 *
 *   node scripts/make-upgrade-fixture.mjs <commit> [--force]
 *
 * The release is exported with `git archive` into a temporary folder, given this checkout's node_modules, and run
 * from its sources with tsx (its CLI makes the API client, its server takes the writes), so that the data is what
 * that release wrote through its public HTTP API. test/upgrades.test.ts opens the fixture with today's svc, runs
 * today's migrations (SQLite: `svc migrate`; PostgreSQL: `svc copy` of the fixture, which migrates an empty
 * database to the fixture's migrations, copies the rows and runs the later ones) and compares every answer.
 * test/upgrades.fixtures.test.ts proves each fixture matches its source (commit, migration files).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

/** Bumped whenever the data set or the files written change, so that a fixture says which script made it. */
export const SCRIPT_VERSION = 2;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ACCOUNT = 'acct_upgrade';
/** Scopes every release since 0010 knows; the data set needs no more. */
const SCOPES = [
  'fields.read',
  'fields.write',
  'field_values.read',
  'field_values.write',
  'accounting.record.read',
  'accounting.record.write',
  'accounting.record.review',
  'accounting.record.admin',
];
const CEILING_MS = 120_000;

function git(args) {
  const res = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
  return res.stdout.trim();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The release's sources in a temporary folder, with this checkout's node_modules. */
function exportRelease(commit) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-release-${commit.slice(0, 7)}-`));
  const res = spawnSync('sh', ['-c', `git archive ${commit} | tar -x -C "${dir}"`], { cwd: ROOT, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`git archive ${commit}: ${res.stderr}`);
  fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'));
  fs.writeFileSync(
    path.join(dir, 'run-cli.mts'),
    "import { run } from './src/cli/main.ts';\nprocess.exitCode = await run(process.argv.slice(2));\n",
  );
  fs.mkdirSync(path.join(dir, 'data'));
  return dir;
}

const tsx = (dir) => path.join(dir, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** The JSON lines a release's CLI command prints. */
function releaseCli(dir, env, args) {
  const res = spawnSync(process.execPath, [tsx(dir), 'run-cli.mts', ...args], {
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`svc ${args.join(' ')} (release) exited ${res.status}: ${res.stderr}`);
  return res.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

async function startRelease(dir, env) {
  const port = await freePort();
  const child = spawn(process.execPath, [tsx(dir), 'src/server.ts'], {
    cwd: dir,
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const base = `http://127.0.0.1:${port}`;
  const since = Date.now();
  for (;;) {
    const res = await fetch(`${base}/v1/fields`).catch(() => null);
    if (res) {
      await res.text();
      break;
    }
    if (child.exitCode !== null) throw new Error(`the release's server exited: ${stderr}`);
    if (Date.now() - since > CEILING_MS) throw new Error(`the release's server did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    async stop() {
      child.kill('SIGTERM');
      const end = await exited;
      // tsx hands SIGTERM to the server and answers 128 + 15 once the server has drained and closed.
      if (end.code !== 0 && end.code !== 143)
        throw new Error(`the release's server stopped badly (${JSON.stringify(end)}): ${stderr}`);
    },
  };
}

function client(base, token) {
  const request = async (method, url, { body, query } = {}) => {
    const u = new URL(url, base);
    for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
    const headers = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID();
    const res = await fetch(u, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  };
  const write = async (method, url, body) => {
    const res = await request(method, url, { body });
    if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return { request, write };
}

const RECORDS = '/v3/accounting/records';
const INGEST = '/internal/v1/accounting/records';
const PEOPLE = {
  user: {
    id: 'cuuser_1',
    email: 'ada@example.invalid',
    first_name: 'Ada',
    last_name: 'Lovelace',
    role: 'EMPLOYEE',
    status: 'ACTIVE',
  },
  vendor: { id: 'v_1', name: 'Vendor H', website: 'https://example.invalid/' },
  receipts: [{ id: 'r_1', download_uris: ['https://example.invalid/r_1.pdf'] }],
};

/** The data set: a chart of two coded fields, records of four types moved through review, coded and exported. */
async function writeData(api) {
  const gl = await api.write('POST', '/v1/fields', { name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL' });
  const glValues = (
    await api.write('POST', `/v1/fields/${gl.svc_id}/values`, {
      items: [
        { value: '6010 Meals', remote_id: 'GL-6010' },
        { value: '6020 Travel', remote_id: 'GL-6020' },
        { value: '6999 Old', remote_id: 'GL-6999', value_id: 'old-6999' },
      ],
    })
  ).items;
  const dept = await api.write('POST', '/v1/fields', { name: 'Department', group: 'ACCOUNTING' });
  const deptValues = (
    await api.write('POST', `/v1/fields/${dept.svc_id}/values`, { items: [{ value: 'Sales' }, { value: 'Ops' }] })
  ).items;
  await api.write('PUT', `/v1/fields/${gl.svc_id}/values`, {
    items: [{ value_id: 'old-6999', data: { is_disabled: true } }],
  });
  const ingested = (
    await api.write('POST', INGEST, {
      items: [
        {
          type: 'CARD_EXPENSE_POST',
          amount: { amount: 171.75, currency: 'USD' },
          original_amount: { amount: 150, currency: 'EUR' },
          posted_at: '2026-06-11T09:09:05.840865Z',
          memo: 'Team lunch with Ünïcode ✓',
          review_status: 'REVIEW',
          ...PEOPLE,
        },
        {
          type: 'BILL_EXPENSE',
          amount: { amount: 1200, currency: 'USD' },
          posted_at: '2026-06-12T10:00:00.000001Z',
          invoice_number: 'INV-1',
          due_at: '2026-07-12T00:00:00Z',
          vendor: PEOPLE.vendor,
          review_status: 'REVIEW',
          lines: [
            { amount: { amount: 1000, currency: 'USD' }, memo: 'hardware' },
            { amount: { amount: 200, currency: 'USD' }, memo: 'support' },
          ],
        },
        {
          type: 'REIMBURSEMENT_EXPENSE_POST',
          amount: { amount: 42.5, currency: 'USD' },
          posted_at: '2026-06-13T08:30:00Z',
          user: PEOPLE.user,
          review_status: 'READY_FOR_EXPORT',
        },
        {
          type: 'CARD_EXPENSE_REFUND',
          amount: { amount: 19.99, currency: 'USD' },
          posted_at: '2026-06-14T12:00:00Z',
          review_status: 'READY_FOR_EXPORT',
        },
        { type: 'CARD_EXPENSE_POST', amount: { amount: 5, currency: 'GBP' }, posted_at: '2026-06-15T00:00:00Z' },
        {
          type: 'CARD_EXPENSE_POST',
          amount: { amount: 100, currency: 'USD' },
          original_amount: { amount: 90.01, currency: 'EUR' },
          posted_at: '2026-06-16T18:45:00.5Z',
          review_status: 'REVIEW',
        },
      ],
    })
  ).items;
  const [card, bill, reimbursement, refund, , split] = ingested;
  // A line split in three (one part coded by remote ids): lines apportioned, original amount included.
  await api.write('POST', `/internal/v1/accounting/records/${split.id}/lines/${split.line_items[0].id}/split`, {
    version: split.version,
    parts: [
      { amount: { amount: 33.33, currency: 'USD' } },
      {
        amount: { amount: 33.33, currency: 'USD' },
        memo: 'taxi',
        field_values: [{ field_remote_id: 'GL', remote_id: 'GL-6020' }],
      },
      { amount: { amount: 33.34, currency: 'USD' }, field_values: [] },
    ],
  });
  await api.write('POST', `/internal/v1/accounting/records/${card.id}/coding`, {
    version: card.version,
    lines: [
      {
        line_id: card.line_items[0].id,
        field_values: [
          { field_remote_id: 'GL', remote_id: 'GL-6010' },
          { field_id: dept.svc_id, svc_id: deptValues[0].svc_id },
        ],
      },
    ],
  });
  await api.write('POST', `/internal/v1/accounting/records/${bill.id}/coding`, {
    version: bill.version,
    lines: [{ line_id: bill.line_items[0].id, field_values: [{ field_id: gl.svc_id, svc_id: glValues[1].svc_id }] }],
  });
  await api.write('POST', `/internal/v1/accounting/records/${card.id}/review-status`, {
    review_status: 'READY_FOR_EXPORT',
  });
  await api.write('POST', `${RECORDS}/export-results`, {
    results: [
      {
        accounting_record_id: card.id,
        success: { reference_id: 'erp_txn_1', deep_link_url: 'https://erp.example/txn/1' },
      },
      { accounting_record_id: reimbursement.id, success: {} },
      { accounting_record_id: refund.id, failure: { error_message: 'Invalid GL account' } },
    ],
  });
  // Last: a required coding would hold back the moves above.
  await api.write('PUT', '/internal/v1/accounting/required-coding', { field_ids: [gl.svc_id] });
  return { fields: [gl, dept], records: ingested };
}

/** The reads whose answers the fixture keeps: every resource of the data set, as a client would read it. */
async function readAnswers(api, { fields, records }) {
  const reads = [{ path: '/v1/fields', query: { limit: '100' } }];
  for (const field of fields) {
    reads.push({ path: `/v1/fields/${field.svc_id}` });
    reads.push({ path: `/v1/fields/${field.svc_id}/values`, query: { limit: '100' } });
  }
  reads.push({ path: RECORDS, query: { limit: '100' } });
  reads.push({ path: INGEST, query: { limit: '100' } });
  reads.push({ path: '/internal/v1/accounting/required-coding' });
  for (const record of records) {
    reads.push({ path: `${INGEST}/${record.id}` });
    reads.push({ path: `${RECORDS}/${record.id}` });
    reads.push({ path: `${RECORDS}/${record.id}`, query: { single_entry: 'true' } });
    reads.push({ path: `/internal/v1/accounting/records/${record.id}/history` });
  }
  const answers = [];
  for (const read of reads) {
    const res = await api.request('GET', read.path, { query: read.query });
    // A route this release did not have yet: nothing to compare.
    if (res.status === 404 && res.body?.error_code === 'NOT_FOUND' && /^Route /.test(res.body.message)) continue;
    if (res.status !== 200) throw new Error(`GET ${read.path}: ${res.status} ${JSON.stringify(res.body)}`);
    answers.push({ method: 'GET', path: read.path, query: read.query ?? {}, status: res.status, body: res.body });
  }
  return answers;
}

async function main() {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const ref = args.find((a) => !a.startsWith('--'));
  if (!ref) throw new Error('usage: node scripts/make-upgrade-fixture.mjs <commit> [--force]');
  const commit = git(['rev-parse', `${ref}^{commit}`]);
  const short = commit.slice(0, 7);
  const out = path.join(ROOT, 'test', 'fixtures', 'upgrades', short);
  if (fs.existsSync(out) && !force) throw new Error(`${out} exists (--force to make it again)`);
  const dir = exportRelease(commit);
  const dbFile = path.join(dir, 'data', 'fixture.sqlite');
  const env = { DATABASE_URL: `sqlite:${dbFile}`, LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0' };
  try {
    const [creds] = releaseCli(dir, env, ['clients', 'create', '--account', ACCOUNT, '--scopes', SCOPES.join(',')]);
    releaseCli(dir, env, [
      'users',
      'create',
      '--account',
      ACCOUNT,
      '--email',
      'grace@example.invalid',
      '--role',
      'BOOKKEEPER',
    ]);
    const server = await startRelease(dir, env);
    let answers;
    try {
      const tokenRes = await fetch(`${server.base}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: creds.client_id,
          client_secret: creds.client_secret,
        }),
      });
      if (tokenRes.status !== 200) throw new Error(`token: ${tokenRes.status} ${await tokenRes.text()}`);
      const api = client(server.base, (await tokenRes.json()).access_token);
      answers = await readAnswers(api, await writeData(api));
    } finally {
      await server.stop();
    }
    // What the release's CLI prints of the account's clients and users (JSON lines), after its server's writes.
    const cli = [
      ['clients', 'list', '--account', ACCOUNT],
      ['users', 'list', '--account', ACCOUNT],
    ].map((args) => ({ args, lines: releaseCli(dir, env, args) }));
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    const db = new Database(dbFile);
    const migrations = db
      .prepare('select name from kysely_migration order by name')
      .all()
      .map((r) => r.name);
    db.prepare('vacuum into ?').run(path.join(out, 'database.sqlite'));
    db.close();
    const manifest = {
      commit,
      committed_at: git(['show', '-s', '--format=%cI', commit]),
      subject: git(['show', '-s', '--format=%s', commit]),
      script: 'scripts/make-upgrade-fixture.mjs',
      script_version: SCRIPT_VERSION,
      migrations,
      account: ACCOUNT,
      // A credential of this fixture's throwaway database only: the upgraded database must still accept it.
      client: creds,
    };
    fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    fs.writeFileSync(path.join(out, 'answers.json'), `${JSON.stringify(answers, null, 2)}\n`);
    fs.writeFileSync(path.join(out, 'cli.json'), `${JSON.stringify(cli, null, 2)}\n`);
    process.stdout.write(`${path.relative(ROOT, out)}: ${migrations.length} migrations, ${answers.length} answers\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
