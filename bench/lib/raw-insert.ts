import { randomBytes } from 'node:crypto';
import { parseDatabaseUrl, type DatabaseTarget } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { nowMicros } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/ids.js';

/**
 * The database floor for creates: the same 1000-row inserts of field values, in one transaction each, straight
 * through Kysely with no HTTP, validation or idempotency. Returns values per second.
 */
export async function rawInsertRate(url: string, batches: number): Promise<number> {
  const target = parseDatabaseUrl(url) as DatabaseTarget;
  const db = openDatabase(target);
  try {
    await migrateToLatest(db);
    const account = `raw_${randomBytes(4).toString('hex')}`;
    const fieldId = newId('extended_field');
    const now = nowMicros();
    await db.direct
      .insertInto('accounts')
      .values({ account_id: account, cursor_key: randomBytes(32).toString('base64'), created_at: now })
      .execute();
    await db.direct
      .insertInto('fields')
      .values({
        account_id: account,
        svc_id: fieldId,
        name: 'Raw',
        field_group: 'ACCOUNTING',
        remote_id: null,
        integration_id: null,
        is_disabled: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const started = performance.now();
    for (let b = 0; b < batches; b++) {
      const rows = Array.from({ length: 1000 }, (_, i) => {
        const t = nowMicros();
        return {
          account_id: account,
          field_id: fieldId,
          svc_id: newId('efo'),
          value: `Account ${b * 1000 + i}`,
          is_disabled: 0,
          remote_id: `R${b * 1000 + i}`,
          value_id: `V${b * 1000 + i}`,
          created_at: t,
          updated_at: t,
        };
      });
      await db.write(async (ex) => {
        // Chunked like the service must be: PostgreSQL allows 65,535 parameters per statement.
        for (let i = 0; i < rows.length; i += 500) {
          await ex
            .insertInto('field_values')
            .values(rows.slice(i, i + 500))
            .execute();
        }
      });
    }
    return (batches * 1000) / ((performance.now() - started) / 1000);
  } finally {
    await db.close();
  }
}
