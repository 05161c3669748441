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
import { client, readAnswers, writeData } from './upgrade-fixture-data.mjs';

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
