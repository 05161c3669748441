import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { PG_URL } from './dialects.js';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { ADMIN } from './accounting.js';
import { expectErrorShape } from './expect.js';
import { valuesUrl } from './field-values.js';
import { sleep, type HttpApi, type HttpResponse, type ServedDatabase } from './reliability.js';
import { storedValues } from './stored.js';

const VERSION = () => fs.readdirSync('/etc/postgresql')[0]!;

/** Asynchronous, so the test's own clients keep sending while PostgreSQL stops or starts. */
async function pgctl(action: 'stop' | 'start'): Promise<void> {
  const args = ['--skip-systemctl-redirect', VERSION(), 'main', action, ...(action === 'stop' ? ['-m', 'fast'] : [])];
  await promisify(execFile)('pg_ctlcluster', args, { timeout: 60_000 });
}

export async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export const stopPostgres = () => pgctl('stop');
export const startPostgres = () => pgctl('start');

/** Starts PostgreSQL unless it answers, and waits until it does (the suite must never leave it down). */
export async function ensurePostgres(): Promise<void> {
  if (await postgresAnswers()) return;
  try {
    await pgctl('start');
  } catch {
    // already starting or running: wait below
  }
  for (let i = 0; i < 100 && !(await postgresAnswers()); i++) await sleep(200);
  if (!(await postgresAnswers())) throw new Error('PostgreSQL did not come back');
}

/** Connections to database `name`, by state (from the postgres database, so this one is not counted). */
export async function connectionsTo(name: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ state: string | null; n: number }>(
      'select state, count(*)::int as n from pg_stat_activity where datname = $1 group by state',
      [name],
    );
    return Object.fromEntries(rows.map((r) => [r.state ?? 'null', r.n]));
  } finally {
    await client.end();
  }
}

/** Connections to database `name` by application_name. */
export async function connectionsByApp(name: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ app: string; n: number }>(
      'select application_name as app, count(*)::int as n from pg_stat_activity where datname = $1 group by application_name',
      [name],
    );
    return Object.fromEntries(rows.map((r) => [r.app, r.n]));
  } finally {
    await client.end();
  }
}

/**
 * The ceiling of an answer while the database is down: a request waits for a connection (5 s) or a lock (busy_timeout
 * 5 s) once and then fails. Generous (3× that wait) so that a busy machine never trips it; what it catches is a
 * request that hangs (TCP timeouts of minutes, retries without end), which `await`ing every answer before the database
 * comes back also catches, at the test's timeout.
 */
export const FAIL_FAST_MS = 15_000;

export interface Sent {
  key: string;
  tag: string;
  body: unknown;
  res: HttpResponse;
}

export async function setupOutage(served: ServedDatabase, base: string) {
  const api = await served.client(base, ADMIN);
  const url = valuesUrl(await api.newField({ name: 'outage' }));
  let n = 0;
  const write = async (): Promise<Sent> => {
    const tag = `b${++n}`;
    const key = randomUUID();
    const body = { items: Array.from({ length: 5 }, (_, i) => ({ value: tag, remote_id: `${tag}-${i}` })) };
    return { key, tag, body, res: await api.post(url, body, { 'idempotency-key': key }) };
  };
  const storedTags = async () => {
    const rows = await storedValues(served, api.accountId);
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.value, (counts.get(r.value) ?? 0) + 1);
    return counts;
  };
  return { api, url, write, storedTags };
}

/** Every acknowledged batch is there whole; every failed one is not there at all, and runs once when retried. */
export async function expectAllOrNothing(
  api: HttpApi,
  url: string,
  sent: Sent[],
  storedTags: () => Promise<Map<string, number>>,
) {
  const stored = await storedTags();
  for (const s of sent)
    expect({ tag: s.tag, stored: stored.get(s.tag) ?? 0 }).toEqual({
      tag: s.tag,
      stored: s.res.status === 200 ? 5 : 0,
    });
  const retried: Record<string, number> = {};
  for (const s of sent.filter((x) => x.res.status !== 200)) {
    const again = await api.post(url, s.body, { 'idempotency-key': s.key });
    const label = `${again.status} ${again.body.error_code ?? ''}`.trim();
    retried[label] = (retried[label] ?? 0) + 1;
    // A key claimed just before the database went away stays locked until its claim expires: 409, nothing run.
    if (again.status !== 200) expectErrorShape(again, 'IDEMPOTENCY_KEY_IN_USE');
  }
  const after = await storedTags();
  for (const s of sent) expect([0, 5]).toContain(after.get(s.tag) ?? 0);
  return retried;
}
