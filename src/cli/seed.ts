import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Db, Executor } from '../db/database.js';
import { afterBulkLoad } from '../speed/statistics.js';
import { nowMicros } from '../lib/clock.js';
import { ingestService } from '../modules/accounting/ingest.service.js';
import { operatorSource } from '../modules/audit/audit.service.js';
import { authService, type Caller } from '../modules/auth/auth.service.js';
import type { FieldValueDto } from '../modules/field-values/field-values.schemas.js';
import { fieldValuesService } from '../modules/field-values/field-values.service.js';
import { fieldsService } from '../modules/fields/fields.service.js';
import { codingRulesService } from '../modules/coding-rules/coding-rules.service.js';
import { accountName, BALANCING_ACCOUNTS, HOME_CURRENCY, SAMPLE_RULES } from './seed-company.js';
import { exportMapping } from '../modules/exports/export-mapping.service.js';
import { codingsOf, DEMO_FIELDS, demoValueName } from './seed-data.js';
import { companyHistory, type CompanyChart } from './seed-history.js';
import { accountingService } from '../modules/accounting/accounting.service.js';
import { CliUsageError, parseAccount, parseCount } from './usage.js';

/** Records per transaction: large enough that commits are a small part of the load. */
const BATCH = 5000;
/** Values per create, the API's own batch limit. */
const VALUE_BATCH = 1000;

/**
 * Progress of a long seed on stderr, when a person watches it (a terminal): records done, rate, time left, on
 * one line rewritten in place. Silent otherwise, so that logs and pipes get the summary alone.
 */
function progressReporter(total: number): (done: number) => void {
  if (!process.stderr.isTTY || total < 10_000) return () => {};
  const started = Date.now();
  return (done) => {
    const seconds = (Date.now() - started) / 1000;
    const rate = done / Math.max(seconds, 0.001);
    const left = Math.max(0, (total - done) / rate);
    process.stderr.write(
      `\rsvc seed: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} records, ${Math.round(rate).toLocaleString('en-US')}/s, ${Math.ceil(left)} s left ${done >= total ? '\n' : ''}`,
    );
  };
}

/**
 * `svc seed --account <id> --records N --values N [--into-existing]`: a company's data (seed-company.ts): its chart
 * of accounts, departments, offices and classes, and a history of every record type in every review state, coded as
 * its merchants always are (seed-history.ts), written through the services as real data is (records as an imported
 * history, in batches under the record clock); into a new account, a few coding rules to try too.
 */
export async function seed(db: Db, args: string[], out: (line: string) => void): Promise<void> {
  const { values: opts } = parseArgs({
    args,
    options: {
      account: { type: 'string' },
      records: { type: 'string' },
      values: { type: 'string' },
      'into-existing': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const tenant: Caller = { accountId: parseAccount(opts.account), actor: { type: 'system', id: 'svc seed' } };
  const recordCount = parseCount(opts.records, 'records', 1000);
  const valueCount = parseCount(opts.values, 'values', 100);
  const started = Date.now();
  const now = nowMicros();

  const tag = randomBytes(3).toString('hex'); // keeps remote_ids of a second run apart from the first's
  const existing = await db.read(async (ex) => ({
    fields: await fieldsService.count(ex, tenant),
    records: await accountingService.recordCount(ex, tenant),
  }));
  const intoExisting = existing.fields + existing.records > 0;
  if (intoExisting && !opts['into-existing']) {
    throw new CliUsageError(
      `account ${tenant.accountId} already has data (${existing.fields} fields, ${existing.records} records): demo data would mix into it. Seed a new account, or add --into-existing to write demo fields (named "Demo …") and records beside it`,
    );
  }
  const progress = progressReporter(recordCount);
  const fields = await db.write(async (ex) => {
    await authService.ensureAccount(ex, tenant.accountId, now);
    let left = valueCount;
    const made = [];
    for (const [index, spec] of DEMO_FIELDS.entries()) {
      // Demo values go into demo fields only: into an account with data, fields of their own, never one of its.
      const field = intoExisting
        ? await fieldsService.create(ex, tenant, {
            name: `Demo ${spec.name} ${tag}`,
            group: 'ACCOUNTING',
            remote_id: `DEMO_${spec.remote}_${tag}`,
          })
        : await fieldsService.create(ex, tenant, { name: spec.name, group: 'ACCOUNTING', remote_id: spec.remote });
      const n = index === DEMO_FIELDS.length - 1 ? left : Math.round(valueCount * spec.share);
      left -= n;
      const values: FieldValueDto[] = [];
      for (let i = 0; i < n; i += VALUE_BATCH) {
        const items = Array.from({ length: Math.min(VALUE_BATCH, n - i) }, (_, k) => ({
          value: spec.remote === 'GL_ACCOUNT' ? accountName(i + k) : demoValueName(spec, i + k),
          remote_id: `${spec.remote}-${tag}-${i + k + 1}`,
        }));
        values.push(...(await fieldValuesService.create(ex, tenant, field.svc_id, items)).items);
      }
      made.push({ field, values });
    }
    return made;
  });

  const [gl, departments, locations, classes] = fields.map(
    ({ field, values }) => new Map(codingsOf(field, values).map((c) => [c.value, c])),
  );
  const chart: CompanyChart = { gl: gl!, departments: departments!, locations: locations!, classes: classes! };
  // Rules code the account's records with these fields' values, and the export mapping books with these fields and
  // the chart's accounts: only into an account of the demo's own (never over an account's own mapping).
  const rules = intoExisting ? 0 : await db.write((ex) => sampleRules(ex, tenant, chart));
  if (!intoExisting)
    await db.write((ex) =>
      storeExportMapping(
        ex,
        tenant,
        fields.map(({ field }) => field.svc_id),
      ),
    );
  const draft = companyHistory(recordCount * 31 + valueCount, now, chart);
  const byType: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  for (let done = 0; done < recordCount; done += BATCH) {
    const drafts = Array.from({ length: Math.min(BATCH, recordCount - done) }, (_, i) => draft(done + i));
    for (const d of drafts) {
      byType[d.type] = (byType[d.type] ?? 0) + 1;
      byStatus[d.reviewStatus] = (byStatus[d.reviewStatus] ?? 0) + 1;
    }
    await db.write((ex) => ingestService.importRecords(ex, tenant, drafts));
    progress(done + drafts.length);
  }

  // A bulk load leaves PostgreSQL without statistics until autovacuum (if on) catches up: analysed now.
  await afterBulkLoad(db);

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
      rules,
      records_by_type: byType,
      records_by_review_status: byStatus,
      seconds: (Date.now() - started) / 1000,
    }),
  );
}

/**
 * The export mapping of the demo company (docs/exports.md, "The stored mapping"), so that every format exports its
 * ready records as they are: the GL field, the chart's balancing accounts (each with its code: Xero needs one), its
 * department, office and class as the ERPs' dimensions (Xero tracks two: department and office), books in USD, and
 * a QuickBooks company with Multicurrency on (its offices abroad spend in their currencies).
 */
async function storeExportMapping(ex: Executor, caller: Caller, fieldIds: readonly string[]): Promise<void> {
  const [gl, department, location, cls] = fieldIds;
  await exportMapping.set(
    ex,
    { ...operatorSource(caller.accountId), actor: caller.actor },
    {
      account_field_id: gl!,
      balancing_accounts: { ...BALANCING_ACCOUNTS },
      dimension_fields: { department: department!, class: cls!, location: location! },
      tracking_fields: [department!, location!],
      home_currency: HOME_CURRENCY,
      quickbooks_multicurrency: true,
    },
  );
}

/** The sample coding rules whose account the chart has ("Rides are travel (Uber)", …), enabled; answers how many. */
async function sampleRules(ex: Executor, caller: Caller, chart: CompanyChart): Promise<number> {
  let made = 0;
  for (const rule of SAMPLE_RULES) {
    const value = chart.gl.get(rule.account);
    if (!value) continue;
    await codingRulesService.create(
      ex,
      { ...operatorSource(caller.accountId), actor: caller.actor },
      {
        name: rule.name,
        conditions: { vendor_name: rule.vendor },
        actions: { field_values: [{ field_id: value.field_id, svc_id: value.svc_id }] },
      },
    );
    made++;
  }
  return made;
}
