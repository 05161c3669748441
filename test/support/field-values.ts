import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { until } from './wait.js';

export const valuesUrl = (fieldId: string) => `/v1/fields/${fieldId}/values`;

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
 * On PostgreSQL, waits until `count` sessions of this test database wait for a lock (requests reached the write that
 * an open test transaction blocks). On SQLite the request simply waits for the one connection.
 */
export async function waitForLockWaiter(ctx: { readonly db: Db }, count = 1): Promise<void> {
  if (ctx.db.dialect !== 'postgres') return;
  await until(`${count} sessions waiting for a lock`, async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.db.direct);
    return rows[0]!.n >= count;
  });
}
