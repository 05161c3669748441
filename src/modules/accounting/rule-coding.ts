import type { Executor } from '../../db/database.js';
import type { Tenant } from '../auth/auth.service.js';
import {
  codingRulesService,
  type FieldChange,
  type LineDecision,
  type RuleSubject,
  type ShownValue,
} from '../coding-rules/coding-rules.service.js';
import type { StoredRecord } from './accounting.tables.js';
import { codingOf } from './codings.js';
import type { RuleCoding } from './history.js';
import {
  economicSideOf,
  sourceTypeOf,
  type AccountingFieldValue,
  type EconomicLine,
  type LineItem,
  type RecordType,
} from './ledger.js';

/**
 * Records as coding rules see them (RuleSubject), and their decisions written into lines: what ingestion and
 * rule-coding.service.ts (rules applied on demand) share.
 */

const shownValues = (values: readonly AccountingFieldValue[]): Map<string, ShownValue> =>
  new Map(values.map((v) => [v.svc_field_id, { svc_id: v.svc_field_value_id, value: v.field_value_name }]));

/** What rules read of a record's user. */
type User = {
  readonly id?: unknown;
  readonly email?: unknown;
  readonly department_id?: unknown;
  readonly location_id?: unknown;
};

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** What a subject takes of a record, new or stored; `lines` are its economic lines. */
export function subjectOf(
  record: {
    id: string | null;
    type: RecordType;
    currency: string;
    amountMinor: number;
    memo: string | null;
    user: User | null;
    vendor: { readonly name?: unknown } | null;
    receipts: readonly unknown[] | null;
    merchantCategoryCode?: string | null;
  },
  lines: readonly { id: string | null; memo: string | null; values: readonly AccountingFieldValue[] }[],
): RuleSubject {
  return {
    id: record.id,
    type: record.type,
    source_type: sourceTypeOf(record.type),
    vendor_name: text(record.vendor?.name),
    merchant_category_code: record.merchantCategoryCode ?? null,
    user_id: text(record.user?.id),
    user_email: text(record.user?.email),
    user_department_id: text(record.user?.department_id),
    user_location_id: text(record.user?.location_id),
    currency: record.currency,
    amount_minor: record.amountMinor,
    memo: record.memo,
    has_receipt: (record.receipts?.length ?? 0) > 0,
    lines: lines.map((l) => ({ id: l.id, memo: l.memo, values: shownValues(l.values) })),
  };
}

/** A stored record as a subject, with its line items and the index of each economic line among them. */
export function storedSubject(row: StoredRecord) {
  const items: LineItem[] = JSON.parse(row.line_items_json);
  const side = economicSideOf(row.type);
  const economic = items.flatMap((item, i) => (item.type === side ? [i] : []));
  const subject = subjectOf(
    {
      id: row.id,
      type: row.type,
      currency: row.currency,
      amountMinor: Number(row.amount_minor),
      memo: row.memo,
      user: row.user_json === null ? null : JSON.parse(row.user_json),
      vendor: row.vendor_json === null ? null : JSON.parse(row.vendor_json),
      receipts: row.receipts_json === null ? null : JSON.parse(row.receipts_json),
      merchantCategoryCode: row.merchant_category_code,
    },
    economic.map((i) => ({ id: items[i]!.id, memo: items[i]!.memo, values: items[i]!.accounting_field_values })),
  );
  return { subject, items, economic };
}

/** A line's coding with the rules' changes: a field's value replaced where it was, new fields after the others. */
export function withChanges(values: readonly AccountingFieldValue[], changes: readonly FieldChange[]) {
  const out = [...values];
  for (const change of changes) {
    const at = out.findIndex((v) => v.svc_field_id === change.field_id);
    if (at >= 0) out[at] = codingOf(change.coding);
    else out.push(codingOf(change.coding));
  }
  return out;
}

/** What a line's decision records: the rule and version of each value and memo set. */
export function ruleCodingsOf(lineId: string, d: LineDecision): RuleCoding[] {
  return [
    ...d.fields.map((f) => ({
      line_id: lineId,
      field_id: f.field_id,
      svc_id: f.coding.svc_id,
      rule_id: f.rule_id,
      rule_version: f.rule_version,
    })),
    ...(d.memo
      ? [{ line_id: lineId, memo: d.memo.after, rule_id: d.memo.rule_id, rule_version: d.memo.rule_version }]
      : []),
  ];
}

/** The line values rules set, as coding rules keep them (memos are not values of a field). */
export function marksOf(recordId: string, codings: readonly RuleCoding[]) {
  return codings.flatMap((c) =>
    'field_id' in c
      ? [
          {
            record_id: recordId,
            line_id: c.line_id,
            field_id: c.field_id,
            svc_id: c.svc_id,
            rule_id: c.rule_id,
            rule_version: c.rule_version,
          },
        ]
      : [],
  );
}

/** What ingestion gives rules of a new record (a RecordDraft, ingest.service.ts). */
interface DraftLike {
  type: RecordType;
  currency: string;
  amountMinor: number;
  memo: string | null;
  user: User | null;
  vendor: { readonly name?: unknown } | null;
  receipts: readonly object[] | null;
  merchantCategoryCode?: string | null;
  lines: readonly EconomicLine[];
  ruleDecisions?: readonly LineDecision[];
}

/**
 * New records with what the account's rules set on their lines (fields the source left uncoded, memos it left
 * empty), each with the decisions that name the rules; as given when no rule applies.
 */
export async function codeDraftsByRules<D extends DraftLike>(ex: Executor, tenant: Tenant, drafts: readonly D[]) {
  const subjects = drafts.map((d) =>
    subjectOf(
      { ...d, id: null },
      d.lines.map((l) => ({ id: null, memo: l.memo, values: l.fieldValues })),
    ),
  );
  const decisions = await codingRulesService.codeAtIngestion(ex, tenant, subjects);
  if (!decisions) return drafts;
  return drafts.map((d, i): D => {
    const decided = decisions[i]!;
    if (decided.length === 0) return d;
    const lines = [...d.lines];
    for (const x of decided) {
      const line = lines[x.line]!;
      lines[x.line] = {
        ...line,
        fieldValues: withChanges(line.fieldValues, x.fields),
        memo: x.memo ? x.memo.after : line.memo,
      };
    }
    return { ...d, lines, ruleDecisions: decided };
  });
}
