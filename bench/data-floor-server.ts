import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { parseDatabaseUrl, type DatabaseTarget } from '../src/config.js';

/**
 * The data floor of a point read (issue 34): a bare Fastify route that reads one field value (a row of about 200
 * bytes) by its primary key and sends it as JSON — nothing else: no authentication, no hooks, no schema, no Kysely.
 * It reads the measured server's own database through the same driver and as many connections: PostgreSQL, a
 * `pg.Pool` of DATABASE_POOL_SIZE (svc's default, 10) on the same server and database, the statement named (prepared
 * once per connection, as svc names its own); SQLite, one better-sqlite3
 * connection (as svc has) on the same file with the server's pragmas (PRAGMAS, a JSON list captured from it).
 * ACCOUNT and FIELD name the field whose values `GET /values/:svc_id` reads. Started by bench/lib/point-floor.ts.
 *
 * And the data floor of a token (`POST /token`, client credentials in HTTP Basic): the client read by its id, its
 * secret's SHA-256 checked, a new token's row inserted into access_tokens and committed before the answer — the
 * durable write svc's token endpoint makes — in groups as svc commits them (the rows asked for in one turn of the
 * event loop, and while a commit runs, in one transaction): SQLite, one statement compiled once and run per row in
 * BEGIN…COMMIT; PostgreSQL, one `unnest` insert per group on a connection of the pool. No form parser, no hooks, no
 * schema, no Kysely.
 */
const target = parseDatabaseUrl(process.env.DATABASE_URL ?? '') as DatabaseTarget;
const account = process.env.ACCOUNT ?? '';
const field = process.env.FIELD ?? '';
const SQL = 'select * from field_values where account_id = $1 and field_id = $2 and svc_id = $3';

const CLIENT_SQL =
  'select account_id, secret_hash, scopes from oauth_clients where client_id = $1 and revoked_at is null';
const TOKEN_COLUMNS = 'account_id, token_hash, client_id, scopes, created_at, expires_at';

type Row = Record<string, unknown>;
type Read = (svcId: string) => Promise<Row | undefined> | Row | undefined;
type Client = { account_id: string; secret_hash: string; scopes: string };
type TokenRow = [accountId: string, tokenHash: string, clientId: string, scopes: string, at: number, expires: number];

interface Store {
  read: Read;
  client(id: string): Promise<Client | undefined> | Client | undefined;
  /** Inserts the rows and commits them, in one transaction. */
  commit(rows: readonly TokenRow[]): Promise<void> | void;
  close(): Promise<void>;
}

function store(): Store {
  if (target.dialect === 'sqlite') {
    const db = new SqliteDatabase(target.path);
    for (const p of JSON.parse(process.env.PRAGMAS ?? '[]') as string[]) db.pragma(p);
    // Waits for the write lock where svc (up beside it, between its own slices) has it for a moment: svc waits too.
    db.pragma('busy_timeout = 1000');
    const q = (text: string) => text.replace(/\$\d/g, '?');
    const statement = db.prepare(q(SQL));
    const client = db.prepare(q(CLIENT_SQL));
    const insert = db.prepare(`insert into access_tokens (${TOKEN_COLUMNS}) values (?, ?, ?, ?, ?, ?)`);
    const group = db.transaction((rows: readonly TokenRow[]) => {
      for (const row of rows) insert.run(...row);
    });
    return {
      read: (svcId) => statement.get(account, field, svcId) as Row | undefined,
      client: (id) => client.get(id) as Client | undefined,
      commit: (rows) => group.immediate(rows),
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: target.url, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  // Named statements, planned once per connection, as svc's are (src/speed/postgres-named.ts): the floor is the
  // best this driver does, not a statement planned at every read.
  const named = { name: 'point_read_floor', text: SQL };
  const clientNamed = { name: 'token_client_floor', text: CLIENT_SQL };
  const insertNamed = {
    name: 'token_insert_floor',
    text: `insert into access_tokens (${TOKEN_COLUMNS}) select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])`,
  };
  return {
    read: async (svcId) => (await pool.query({ ...named, values: [account, field, svcId] })).rows[0] as Row,
    client: async (id) => (await pool.query({ ...clientNamed, values: [id] })).rows[0] as Client | undefined,
    async commit(rows) {
      const connection = await pool.connect();
      try {
        await connection.query('begin');
        await connection.query({ ...insertNamed, values: [0, 1, 2, 3, 4, 5].map((i) => rows.map((r) => r[i])) });
        await connection.query('commit');
        connection.release();
      } catch (error) {
        connection.release(error as Error);
        throw error;
      }
    },
    close: () => pool.end(),
  };
}

const { read, client, commit, close } = store();

/** Token rows asked for in one turn of the event loop, or while a group commits, are committed as one group. */
const waiting: { row: TokenRow; done: (error?: unknown) => void }[] = [];
let flushing = false;
function flush(): void {
  if (flushing || waiting.length === 0) return;
  flushing = true;
  setImmediate(async () => {
    const group = waiting.splice(0, 500);
    let failed: unknown;
    try {
      await commit(group.map((w) => w.row));
    } catch (error) {
      failed = error ?? new Error('commit failed');
    }
    for (const w of group) w.done(failed);
    flushing = false;
    flush();
  });
}
const committed = (row: TokenRow) =>
  new Promise<void>((resolve, reject) => {
    waiting.push({ row, done: (error) => (error === undefined ? resolve() : reject(error)) });
    flush();
  });
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));
app.get<{ Params: { svc_id: string } }>('/values/:svc_id', async (request, reply) => {
  const row = await read(request.params.svc_id);
  if (!row) return reply.code(404).send({ error: 'not found' });
  return row;
});
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
  done(null, body),
);
app.post('/token', async (request, reply) => {
  const basic = Buffer.from((request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
  const [id = '', secret = ''] = basic.split(':');
  const found = await client(id);
  const given = Buffer.from(sha256(secret), 'hex');
  if (!found || !timingSafeEqual(Buffer.from(found.secret_hash, 'hex'), given)) {
    return reply.code(401).send({ error: 'invalid_client' });
  }
  const token = `svc_at_${randomBytes(32).toString('base64url')}`;
  const now = Date.now() * 1000;
  await committed([found.account_id, sha256(token), id, found.scopes, now, now + 3_600_000_000]);
  return { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: found.scopes };
});
app.addHook('onClose', close);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ address })}\n`);
