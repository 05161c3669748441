import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Db } from '../db/database.js';
import { refreshStatistics } from '../db/statistics.js';
import { nowMicros } from '../lib/clock.js';
import { ingestService } from '../modules/accounting/ingest.service.js';
import { authService, type Caller } from '../modules/auth/auth.service.js';
import type { FieldValueDto } from '../modules/field-values/field-values.schemas.js';
import { fieldValuesService } from '../modules/field-values/field-values.service.js';
import { fieldsService } from '../modules/fields/fields.service.js';
import { codingsOf, DEMO_FIELDS, demoRecords, demoValueName } from './seed-data.js';
import { parseAccount, parseCount } from './usage.js';

/** Records per transaction: large enough that commits are a small part of the load. */
const BATCH = 5000;
/** Values per create, the API's own batch limit. */
const VALUE_BATCH = 1000;

/**
 * `svc seed --account <id> --records N --values N`: demo data of every record type and review state, written
 * through the services as real data is (records as an imported history, in batches under the record clock).
 */
export async function seed(db: Db, args: string[], out: (line: string) => void): Promise<void> {
  const { values: opts } = parseArgs({
    args,
    options: { account: { type: 'string' }, records: { type: 'string' }, values: { type: 'string' } },
    strict: true,
  });
  const tenant: Caller = { accountId: parseAccount(opts.account), actor: { type: 'system', id: 'svc seed' } };
  const recordCount = parseCount(opts.records, 'records', 1000);
  const valueCount = parseCount(opts.values, 'values', 100);
  const started = Date.now();
  const now = nowMicros();

  const tag = randomBytes(3).toString('hex'); // keeps remote_ids of a second run apart from the first's
  const fields = await db.write(async (ex) => {
    await authService.ensureAccount(ex, tenant.accountId, now);
    let left = valueCount;
    const made = [];
    for (const [index, spec] of DEMO_FIELDS.entries()) {
      const field =
        (await fieldsService.findByName(ex, tenant, spec.name)) ??
        (await fieldsService.create(ex, tenant, { name: spec.name, group: 'ACCOUNTING', remote_id: spec.remote }));
      const n = index === DEMO_FIELDS.length - 1 ? left : Math.round(valueCount * spec.share);
      left -= n;
      const values: FieldValueDto[] = [];
      for (let i = 0; i < n; i += VALUE_BATCH) {
        const items = Array.from({ length: Math.min(VALUE_BATCH, n - i) }, (_, k) => ({
          value: demoValueName(spec, i + k),
          remote_id: `${spec.remote}-${tag}-${i + k + 1}`,
        }));
        values.push(...(await fieldValuesService.create(ex, tenant, field.svc_id, items)).items);
      }
      made.push({ field, values });
    }
    return made;
  });

  const draft = demoRecords(
    recordCount * 31 + valueCount,
    now,
    fields.map(({ field, values }) => codingsOf(field, values)),
  );
  const byType: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  for (let done = 0; done < recordCount; done += BATCH) {
    const drafts = Array.from({ length: Math.min(BATCH, recordCount - done) }, (_, i) => draft(done + i));
    for (const d of drafts) {
      byType[d.type] = (byType[d.type] ?? 0) + 1;
      byStatus[d.reviewStatus] = (byStatus[d.reviewStatus] ?? 0) + 1;
    }
    await db.write((ex) => ingestService.importRecords(ex, tenant, drafts));
  }

  // A bulk load leaves PostgreSQL without statistics until autovacuum (if on) catches up.
  await refreshStatistics(db);

  out(
    JSON.stringify({
      account_id: tenant.accountId,
      fields: fields.map(({ field, values }) => ({
        svc_id: field.svc_id,
        name: field.name,
        remote_id: field.remote_id,
        values: values.length,
      })),
      values: valueCount,
      records: recordCount,
      records_by_type: byType,
      records_by_review_status: byStatus,
      seconds: (Date.now() - started) / 1000,
    }),
  );
}
