import { type Kysely, sql } from 'kysely';
import { expect, it } from 'vitest';
import { ADMIN, reviewUrl } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import type { TestContext } from './support/context.js';

/**
 * PostgreSQL undoes a transaction that meets a concurrent one: the victim of a deadlock (40P01) or a serialization
 * failure (40001). The request was not wrong and nothing is broken, so it is answered 503 with Retry-After (not
 * 500), nothing of it is kept, and the same request sent again succeeds. The errors are PostgreSQL's own, raised in
 * the request's own transaction by a trigger (a real deadlock's victim is PostgreSQL's choice, not the test's).
 * SQLite has neither: its writers are serialised by one lock, whose failures are answered 503 too
 * (test/reliability/sqlite-lock-readiness.test.ts).
 */
async function failWith(ctx: TestContext, code: '40001' | '40P01', table: string, event: 'insert' | 'update') {
  const db = ctx.db.direct as Kysely<any>;
  const name = `conflict_${table}_${code.toLowerCase()}`;
  await sql
    .raw(
      `create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'injected ${code}' using errcode = '${code}'; end $$;
       create trigger ${name} before ${event} on ${table} for each row execute function ${name}()`,
    )
    .execute(db);
  return async () => {
    await sql.raw(`drop trigger ${name} on ${table}; drop function ${name}()`).execute(db);
  };
}

const conflict = errorBody('SERVICE_UNAVAILABLE', {
  message: 'The request met a concurrent one and was undone: nothing of it was saved. Send it again.',
});

describeEachDialect(
  'a transaction PostgreSQL undid for a concurrent one',
  (t) => {
    it('a deadlock victim is answered 503 with Retry-After, keeps nothing, and the same request then succeeds', async () => {
      const api = await t.ctx.as(['fields.read', 'fields.write']);
      const key = { 'idempotency-key': 'deadlock-victim-1' };
      const heal = await failWith(t.ctx, '40P01', 'fields', 'insert');
      let res;
      try {
        res = await api.create('/v1/fields', { name: 'Department', group: 'ACCOUNTING' }, key);
      } finally {
        await heal();
      }
      expect([res.status, res.body, res.headers['retry-after']]).toEqual([503, conflict, '1']);
      expect((await api.get('/v1/fields')).body.items).toEqual([]);
      const again = await api.create('/v1/fields', { name: 'Department', group: 'ACCOUNTING' }, key);
      expect([again.status, again.body.name]).toEqual([200, 'Department']);
      expect((await api.get('/v1/fields')).body.items.map((f: any) => f.svc_id)).toEqual([again.body.svc_id]);
    });

    it('a serialization failure in a review move is answered 503; the record stays where it was until the move is sent again', async () => {
      const api = await t.ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read']);
      const record = await api.newRecord({ review_status: 'REVIEW' });
      const url = reviewUrl(record.id);
      const heal = await failWith(t.ctx, '40001', 'accounting_records', 'update');
      let res;
      try {
        res = await api.post(url, { review_status: 'READY_FOR_EXPORT' });
      } finally {
        await heal();
      }
      expect([res.status, res.body, res.headers['retry-after']]).toEqual([503, conflict, '1']);
      const stored = await api.get(`/internal/v1/accounting/records/${record.id}`);
      expect([stored.body.record.review_status, stored.body.record.version]).toEqual(['REVIEW', record.version]);
      const again = await api.post(url, { review_status: 'READY_FOR_EXPORT' });
      expect([again.status, again.body.review_status]).toEqual([200, 'READY_FOR_EXPORT']);
    });
  },
  {},
  { only: 'postgres' },
);
