import type { Db } from '../../src/db/database.js';
import { centsOf, economicLines, type Op } from './reliability-ops.js';
import type { Workload } from './reliability-workload.js';

/** What the database holds of a Workload's entities, read directly and told in the model's terms. */

/** How many of the op's items the database shows applied (all-or-nothing: 0 or op.targets.length). */
export async function workloadApplied(workload: Workload, db: Db, op: Op): Promise<number> {
  const k = db.direct;
  const account = workload.api.accountId;
  if (['reopen', 'approve', 'code', 'split', 'merge'].includes(op.kind)) {
    // The op's records at the version it would produce (each op bumps each of its records by one).
    const wanted = new Map(op.targets.map((s) => [workload.records.get(s)!.id, workload.records.get(s)!.version + 1]));
    const rows = await k
      .selectFrom('accounting_records')
      .select(['id', 'version'])
      .where('account_id', '=', account)
      .where('id', 'in', [...wanted.keys()])
      .execute();
    return rows.filter((r) => Number(r.version) === wanted.get(r.id)).length;
  }
  if (op.kind === 'ingest' || op.kind === 'export' || op.kind === 'fail') {
    const rows = await k
      .selectFrom('accounting_records')
      .select(['source_id', 'last_export_json'])
      .where('account_id', '=', account)
      .where('source_id', 'in', op.targets)
      .execute();
    if (op.kind === 'ingest') return rows.length;
    const reported = (json: string | null) => {
      if (json === null) return false;
      const last = JSON.parse(json);
      return op.kind === 'export' ? last.reference_id === op.text : last.error_message === op.text;
    };
    return rows.filter((r) => reported(r.last_export_json)).length;
  }
  const rows = await k
    .selectFrom('field_values')
    .select(['remote_id', 'value'])
    .where('account_id', '=', account)
    .where('field_id', '=', workload.fieldId)
    .where('remote_id', 'in', op.targets)
    .execute();
  if (op.kind === 'create') return rows.length;
  if (op.kind === 'update') return rows.filter((r) => r.value === op.text).length;
  return op.targets.length - rows.length;
}

/** The stored state of this client's entities, in the model's terms. */
export async function workloadStored(workload: Workload, db: Db) {
  const values = await db.direct
    .selectFrom('field_values')
    .select(['remote_id', 'value'])
    .where('account_id', '=', workload.api.accountId)
    .where('field_id', '=', workload.fieldId)
    .execute();
  const records = await db.direct
    .selectFrom('accounting_records as r')
    .innerJoin('accounting_record_details as d', (j) =>
      j.onRef('d.account_id', '=', 'r.account_id').onRef('d.id', '=', 'r.id'),
    )
    .select(['r.id', 'r.source_id', 'r.review_status', 'r.version', 'r.last_export_json', 'd.line_items_json'])
    .where('r.account_id', '=', workload.api.accountId)
    .execute();
  type StoredLine = {
    id: string;
    type: string;
    amount: { amount: number };
    accounting_field_values: { remote_field_value_id: string }[];
  };
  const linesOf = (json: string) =>
    economicLines(JSON.parse(json) as StoredLine[]).map((l) => ({
      id: l.id,
      cents: centsOf(l.amount),
      coded: l.accounting_field_values[0]?.remote_field_value_id ?? null,
    }));
  return {
    values: Object.fromEntries(values.map((v) => [v.remote_id, v.value])),
    records: Object.fromEntries(
      records.map((r) => {
        const last = r.last_export_json ? JSON.parse(r.last_export_json) : null;
        return [
          r.source_id,
          {
            id: r.id,
            status: r.review_status,
            version: Number(r.version),
            reference: last?.reference_id ?? null,
            failure: last?.error_message ?? null,
            lines: linesOf(r.line_items_json),
          },
        ];
      }),
    ),
  };
}
