import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Api, TestContext } from './context.js';

export const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const VALUE_ID = /^efo_[0-9a-z]{26}$/;

/** A new field of the caller's account; the caller needs fields.write. */
export async function newField(api: Api, name = 'Department'): Promise<string> {
  const res = await api.create('/v1/fields', { name, group: 'ACCOUNTING' });
  expect(res.status).toBe(200);
  return res.body.svc_id;
}

export const valuesUrl = (fieldId: string) => `/v1/fields/${fieldId}/values`;

/** Creates values through the API and returns them as answered. */
export async function newValues(api: Api, fieldId: string, items: Record<string, unknown>[]): Promise<any[]> {
  const res = await api.create(valuesUrl(fieldId), { items });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
}

/** The stored rows of a field, in creation order, read directly from the database. */
export async function storedValues(ctx: TestContext, accountId: string, fieldId: string) {
  return ctx.db.direct
    .selectFrom('field_values')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('field_id', '=', fieldId)
    .orderBy('svc_id')
    .execute();
}

/** The API shape of a value, for comparing stored rows with answers. */
export function rowShape(row: {
  svc_id: string;
  field_id: string;
  value: string;
  is_disabled: number;
  remote_id: string | null;
  value_id: string | null;
}) {
  return {
    svc_id: row.svc_id,
    field_id: row.field_id,
    value: row.value,
    is_disabled: row.is_disabled === 1,
    remote_id: row.remote_id,
    value_id: row.value_id,
  };
}

/**
 * On PostgreSQL, waits until a session of this test database waits for a lock (a request reached the write
 * that an open test transaction blocks). On SQLite the request simply waits for the one connection.
 */
export async function waitForLockWaiter(ctx: TestContext): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  for (let i = 0; i < 300; i++) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.db.direct);
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no request came to wait for the lock');
}
