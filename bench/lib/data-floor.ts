import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { parseDatabaseUrl, type DatabaseTarget } from '../../src/config.js';
import { nowMicros } from '../../src/lib/clock.js';
import type { Captured } from './capture.js';
import type { Statement } from './capture-log.js';

/**
 * The data floors: the statements a request ran (captured from a second server, bench/lib/capture.ts), run again
 * straight through the driver on the same database, plus `JSON.stringify` of the request's answer. No HTTP, no
 * Kysely, no validation, no hooks: what is left of a request when only its database work and its JSON remain.
 */

interface Result {
  rows: Record<string, unknown>[];
  changes: number;
}

/** A bare driver connection. SQLite answers synchronously, so that a floor pays for no promise per statement. */
export type Raw =
  | { dialect: 'sqlite'; run(sql: string, params: unknown[]): Result; close(): Promise<void> }
  | { dialect: 'postgres'; run(sql: string, params: unknown[]): Promise<Result>; close(): Promise<void> };

/** Opens the database as the service does: on SQLite with the pragmas its server set (captured). */
export async function openRaw(url: string, pragmas: readonly string[]): Promise<Raw> {
  const target = parseDatabaseUrl(url) as DatabaseTarget;
  if (target.dialect === 'sqlite') {
    const db = new SqliteDatabase(target.path);
    for (const p of pragmas) db.pragma(p);
    // The server's busy_timeout is 0 (it waits on a timer instead); here a blocking wait harms nothing, and the
    // capture server's background work may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    const statements = new Map<string, SqliteDatabase.Statement>();
    return {
      dialect: 'sqlite',
      run(sql, params) {
        let s = statements.get(sql);
        if (!s) statements.set(sql, (s = db.prepare(sql)));
        if (s.reader) return { rows: s.all(params) as Record<string, unknown>[], changes: 0 };
        return { rows: [], changes: s.run(params).changes };
      },
      close: async () => {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  return {
    dialect: 'postgres',
    async run(sql, params) {
      const r = await client.query(sql, params);
      return { rows: r.rows as Record<string, unknown>[], changes: r.rowCount ?? 0 };
    },
    close: () => client.end(),
  };
}

/** Runs `once` until `seconds` have passed (and at least `min` times); returns runs per second. */
async function rate(seconds: number, min: number, once: () => void | Promise<void>): Promise<number> {
  const started = performance.now();
  let runs = 0;
  while (runs < min || performance.now() - started < seconds * 1000) {
    const pending = once();
    if (pending) await pending;
    runs++;
  }
  return runs / ((performance.now() - started) / 1000);
}

const isTransactionControl = (sql: string) => /^\s*(begin|start transaction|commit|rollback)\b/i.test(sql);
/** A statement that changes nothing: a select, or the read of a pragma (`pragma data_version`, no `=`). */
export const isRead = (sql: string) => /^\s*(select|with)\b/i.test(sql) || /^\s*pragma\s+[\w.]+\s*;?\s*$/i.test(sql);

/**
 * A read request's floor: each captured request's statements with their parameters, then its answer written
 * again with JSON.stringify (unless a statement answered that JSON itself), cycling through the requests for
 * `seconds`. Returns requests per second.
 */
export async function readFloor(raw: Raw, requests: readonly Captured[], seconds: number): Promise<number> {
  for (const { statements } of requests) {
    const write = statements.find((s) => !isTransactionControl(s.sql) && !isRead(s.sql));
    // Running a write again and again would not be the request's work (and could break the data).
    if (write) throw new Error(`data floor: a read request ran a write: ${write.sql.slice(0, 200)}`);
  }
  // Where the SQL itself wrote the answer's JSON (SQLite's page of values, json_group_array), that is the floor's
  // JSON: writing it again would count it twice and make the floor slower than the service.
  const jsonWritten: boolean[] = [];
  for (const { statements, answer } of requests) {
    const length = JSON.stringify(answer).length;
    const results = await runAll(raw, statements);
    jsonWritten.push(
      results.some((r) =>
        r.rows.some((row) =>
          Object.values(row).some(
            (v) => (typeof v === 'string' || Buffer.isBuffer(v)) && v.length >= length / 2 && length > 1000,
          ),
        ),
      ),
    );
  }
  let i = 0;
  const next = () => {
    const n = i++ % requests.length;
    return { ...requests[n]!, stringify: !jsonWritten[n] };
  };
  if (raw.dialect === 'sqlite') {
    return rate(seconds, requests.length, () => {
      const { statements, answer, stringify } = next();
      for (const s of statements) raw.run(s.sql, s.params);
      if (stringify) JSON.stringify(answer);
    });
  }
  return rate(seconds, requests.length, async () => {
    const { statements, answer, stringify } = next();
    for (const s of statements) await raw.run(s.sql, s.params);
    if (stringify) JSON.stringify(answer);
  });
}

/** `insert into "t" ("a", "b") values (...)`: the table's columns in parameter order. */
export function insertColumns(sql: string): string[] {
  const m = /^\s*insert\s+into\s+"?[\w.]+"?\s*\(([^)]*)\)\s*values/i.exec(sql);
  if (!m) throw new Error(`not an insert with a column list: ${sql.slice(0, 200)}`);
  return m[1]!.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
}

async function runAll(raw: Raw, statements: readonly Statement[]): Promise<Result[]> {
  const out: Result[] = [];
  for (const s of statements)
    out.push(raw.dialect === 'sqlite' ? raw.run(s.sql, s.params) : await raw.run(s.sql, s.params));
  return out;
}

/**
 * The insert floor: the INSERT statements of a captured create request (`table`), in the request's own BEGIN …
 * COMMIT, with rows made by `valueOf(column, row)` instead of the request's (the floor's rows are new ones).
 * `batches` transactions, each of as many rows as the request had. Returns rows per second.
 */
export async function insertFloor(
  raw: Raw,
  captured: Captured,
  table: string,
  batches: number,
  valueOf: (column: string, row: number) => unknown,
): Promise<number> {
  const begin = captured.statements.find((s) => /^\s*(begin|start transaction)\b/i.test(s.sql));
  const commit = captured.statements.find((s) => /^\s*commit\b/i.test(s.sql));
  const inserts = captured.statements.filter((s) =>
    new RegExp(`^\\s*insert\\s+into\\s+"?${table}"?\\s`, 'i').test(s.sql),
  );
  if (!begin || !commit || inserts.length === 0)
    throw new Error(`insert floor: no transaction inserting into ${table}`);
  let row = 0;
  const plan = Array.from({ length: batches }, () => [
    begin,
    ...inserts.map((s) => {
      const columns = insertColumns(s.sql);
      const params: unknown[] = [];
      for (let r = 0; r < s.params.length / columns.length; r++, row++) {
        for (const column of columns) params.push(valueOf(column, row));
      }
      return { sql: s.sql, params };
    }),
    commit,
  ]);
  const started = performance.now();
  let inserted = 0;
  for (const statements of plan) {
    // RETURNING (the service's) answers a row per inserted row.
    for (const r of await runAll(raw, statements)) inserted += Math.max(r.rows.length, r.changes);
  }
  const seconds = (performance.now() - started) / 1000;
  if (inserted < row) throw new Error(`insert floor: ${inserted} of ${row} rows inserted`);
  return row / seconds;
}

/**
 * The export floor: a captured export-results request's UPDATEs of `accounting_records`, under the account's
 * record clock as the request took it (its statements on `account_record_clocks`), in its BEGIN … COMMIT: run
 * once per batch of other READY_FOR_EXPORT records, the request's record ids replaced by the batch's and its
 * updated_at values moved after the clock's (updated_at is unique per account). The rest of the request (its
 * idempotency record, the state check, counts, history and outbox events) is not in the floor. Returns records/s.
 */
export async function exportUpdateFloor(
  raw: Raw,
  captured: Captured,
  capturedIds: readonly string[],
  batches: readonly (readonly string[])[],
): Promise<number> {
  const isUpdate = (sql: string) => /\bupdate\s+"?accounting_records"?\s/i.test(sql);
  const isClock = (sql: string) => /"?account_record_clocks"?/i.test(sql);
  const statements = captured.statements.filter(
    (s) => isTransactionControl(s.sql) || isUpdate(s.sql) || isClock(s.sql),
  );
  const clockRead = statements.findIndex((s) => isClock(s.sql) && /^\s*select\b/i.test(s.sql));
  if (clockRead < 0 || !statements.some((s) => isUpdate(s.sql))) {
    throw new Error('export floor: the request read no record clock or updated no record');
  }
  // The request's updated_at values: consecutive from the clock, the smallest time among the updates' parameters.
  // A parameter may be an array (PostgreSQL's UPDATE … FROM unnest(…) takes each column as one): its elements count.
  const times = statements
    .filter((s) => isUpdate(s.sql))
    .flatMap((s) => s.params.flat())
    .filter((p): p is number => typeof p === 'number' && p > 1e15);
  const first = Math.min(...times);
  const span = capturedIds.length;
  const started = performance.now();
  let changed = 0;
  for (const ids of batches) {
    const ofBatch = new Map(capturedIds.map((id, i) => [id, ids[i]!]));
    let shift = 0;
    const other = (p: unknown): unknown =>
      typeof p === 'string'
        ? (ofBatch.get(p) ?? p)
        : typeof p === 'number' && p >= first && p < first + span
          ? p + shift
          : Array.isArray(p)
            ? p.map(other)
            : p;
    for (const [i, s] of statements.entries()) {
      const params = s.params.map(other);
      const r = raw.dialect === 'sqlite' ? raw.run(s.sql, params) : await raw.run(s.sql, params);
      if (i === clockRead) {
        const last = Number(r.rows[0]?.last_updated_at);
        shift = Math.max(nowMicros(), last + 1) - first;
      }
      if (isUpdate(s.sql)) changed += r.changes;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const expected = batches.length * span;
  if (changed !== expected) throw new Error(`export floor: ${changed} of ${expected} records updated`);
  return expected / seconds;
}
