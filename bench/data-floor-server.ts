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
 */
const target = parseDatabaseUrl(process.env.DATABASE_URL ?? '') as DatabaseTarget;
const account = process.env.ACCOUNT ?? '';
const field = process.env.FIELD ?? '';
const SQL = 'select * from field_values where account_id = $1 and field_id = $2 and svc_id = $3';

type Read = (svcId: string) => Promise<Record<string, unknown> | undefined> | Record<string, unknown> | undefined;

function reader(): { read: Read; close(): Promise<void> } {
  if (target.dialect === 'sqlite') {
    const db = new SqliteDatabase(target.path);
    for (const p of JSON.parse(process.env.PRAGMAS ?? '[]') as string[]) db.pragma(p);
    const statement = db.prepare(SQL.replace(/\$\d/g, '?'));
    return {
      read: (svcId) => statement.get(account, field, svcId) as Record<string, unknown> | undefined,
      close: async () => {
        db.close();
      },
    };
  }
  const pool = new pg.Pool({ connectionString: target.url, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  // A named statement, planned once per connection, as svc's are (src/speed/postgres-named.ts): the floor is the
  // best this driver does, not a statement planned at every read.
  const named = { name: 'point_read_floor', text: SQL };
  return {
    read: async (svcId) =>
      (await pool.query({ ...named, values: [account, field, svcId] })).rows[0] as Record<string, unknown>,
    close: () => pool.end(),
  };
}

const { read, close } = reader();
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));
app.get<{ Params: { svc_id: string } }>('/values/:svc_id', async (request, reply) => {
  const row = await read(request.params.svc_id);
  if (!row) return reply.code(404).send({ error: 'not found' });
  return row;
});
app.addHook('onClose', close);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`${JSON.stringify({ address })}\n`);
