import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { Caller, Tenant } from '../auth/auth.service.js';
import { accountingRepository } from './accounting.repository.js';
import { AccountingRecordShape } from './accounting.schemas.js';
import type { AcceptedSuggestion } from './history.js';
import { economicLines, LEDGER, sourceTypeOf, type LineItem, type RecordType, type SourceType } from './ledger.js';
import { EDITABLE, type ReviewStatus } from './lifecycle.js';
import { checkLineIds, codingsFor, editRecord } from './line-edit.js';
import { recordClock } from './record-clock.repository.js';
import type { RecordWithSingleEntry } from './review.schemas.js';
import {
  suggestionHistoryRepository,
  type HistoryRow,
  type HistorySignal,
  type SuggestionRow,
} from './suggestion-history.repository.js';
import { suggestionValues, type CodedValue } from '../../speed/suggestion-values.js';

export type { AcceptedSuggestion } from './history.js';
export type { HistorySignal } from './suggestion-history.repository.js';

/**
 * What a record's economic lines book to ('expense', 'bank (cash)', 'revenue', …): a vendor's bills and its
 * payments are of one vendor but not of one account, and suggestions learn each from its own kind.
 */
export const bookedTo = (type: RecordType): string => LEDGER[type].economicAccount;

/** A record as suggestions see it: what they learn from, and its economic lines with the fields each is coded in. */
export interface SuggestionSubject {
  id: string;
  version: number;
  review_status: ReviewStatus;
  type: RecordType;
  source_type: SourceType;
  vendor_name: string | null;
  user_email: string | null;
  memo: string | null;
  currency: string;
  amount_minor: number;
  lines: { id: string; field_ids: string[] }[];
}

/** A record of the history: what it was, and the values its economic lines were coded with (each pair once). */
export interface HistoryRecord {
  id: string;
  type: RecordType;
  currency: string;
  amount_minor: number;
  values: readonly { field_id: string; svc_id: string }[];
}

/** A record of a record type's history, with its memo: the memo signal looks for its words among these. */
export interface TypeHistoryRecord extends HistoryRecord {
  memo: string | null;
}

/** The histories of a page's keys: a record type's records carry their memos. */
export interface Histories {
  VENDOR: Map<string, HistoryRecord[]>;
  USER: Map<string, HistoryRecord[]>;
  RECORD_TYPE: Map<string, TypeHistoryRecord[]>;
}

function economicOf(row: Pick<SuggestionRow, 'type' | 'line_items_json'>): LineItem[] {
  const lines: LineItem[] = JSON.parse(row.line_items_json);
  return economicLines(row.type, lines);
}

function subjectOf(row: SuggestionRow): SuggestionSubject {
  return {
    id: row.id,
    version: Number(row.version),
    review_status: row.review_status,
    type: row.type,
    source_type: sourceTypeOf(row.type),
    vendor_name: row.vendor_name,
    user_email: row.user_email,
    memo: row.memo,
    currency: row.currency,
    amount_minor: Number(row.amount_minor),
    lines: economicOf(row).map((l) => ({
      id: l.id,
      field_ids: l.accounting_field_values.map((v) => v.svc_field_id),
    })),
  };
}

/** The values a record's economic lines are coded with, each pair once. */
function valuesOf(row: Pick<SuggestionRow, 'type' | 'line_items_json'>): CodedValue[] {
  const seen = new Set<string>();
  const values: CodedValue[] = [];
  for (const line of economicOf(row)) {
    for (const v of line.accounting_field_values) {
      const key = `${v.svc_field_id}\u0000${v.svc_field_value_id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      values.push({ field_id: v.svc_field_id, svc_id: v.svc_field_value_id });
    }
  }
  return values;
}

function historyOf(row: HistoryRow, values: readonly CodedValue[]): HistoryRecord {
  return { id: row.id, type: row.type, currency: row.currency, amount_minor: Number(row.amount_minor), values };
}

/**
 * What coding suggestions (modules/suggestions) ask of accounting: records as subjects, the bounded approved
 * history of a vendor, a user or a record type, and accepted suggestions written through the coding path (the
 * record versioned, its history's CODED event naming each suggestion accepted).
 */
export const suggestionCodingService = {
  /** The account's records among `ids`, as subjects (those it does not have are absent). */
  async subjects(ex: Executor, tenant: Tenant, ids: readonly string[]): Promise<SuggestionSubject[]> {
    return (await suggestionHistoryRepository.records(ex, tenant.accountId, ids)).map(subjectOf);
  },

  /**
   * For each signal and each of its keys (a vendor name, a user email, a record type), the key's last `limit`
   * approved records (READY_FOR_EXPORT, EXPORTED), newest posted first. A record in several histories is read and
   * worked out once: the histories share its object.
   */
  async histories(
    ex: Executor,
    tenant: Tenant,
    keys: Readonly<Record<HistorySignal, readonly string[]>>,
    limit: number,
  ): Promise<Histories> {
    const read = async (signal: HistorySignal) =>
      suggestionHistoryRepository.history(ex, tenant.accountId, signal, keys[signal], limit);
    const rows = { VENDOR: await read('VENDOR'), USER: await read('USER'), RECORD_TYPE: await read('RECORD_TYPE') };
    const { accountId } = tenant;
    // Line items are read only for the versions this process has not worked out yet (src/speed/suggestion-values.ts).
    // Taken out of the cache once, here: what this request adds to it may push older entries out meanwhile.
    const made = new Map<string, HistoryRecord>();
    const missing = new Map<string, HistoryRow>();
    for (const byKey of Object.values(rows)) {
      for (const list of byKey.values()) {
        for (const row of list) {
          if (made.has(row.id) || missing.has(row.id)) continue;
          const values = suggestionValues.get(accountId, row.id, Number(row.version));
          if (values) made.set(row.id, historyOf(row, values));
          else missing.set(row.id, row);
        }
      }
    }
    const items = await suggestionHistoryRepository.lineItems(ex, accountId, [...missing.keys()]);
    for (const [id, row] of missing) {
      const lineItemsJson = items.get(id);
      // Details are written with their record; one missing is left out, as a join would leave it.
      if (lineItemsJson === undefined) continue;
      const values = valuesOf({ type: row.type, line_items_json: lineItemsJson });
      suggestionValues.set(accountId, id, Number(row.version), values);
      made.set(id, historyOf(row, values));
    }
    const worked = <R>(byKey: Map<string, HistoryRow[]>, recordOf: (row: HistoryRow, record: HistoryRecord) => R) => {
      const out = new Map<string, R[]>();
      for (const [key, list] of byKey) {
        const records: R[] = [];
        for (const row of list) {
          const record = made.get(row.id);
          if (record) records.push(recordOf(row, record));
        }
        out.set(key, records);
      }
      return out;
    };
    // A type's records with their memos (read with them): objects of their own, a few hundred a page at most.
    const withMemo = new Map<string, TypeHistoryRecord>();
    const typed = (row: HistoryRow, record: HistoryRecord): TypeHistoryRecord => {
      let typedRecord = withMemo.get(row.id);
      if (!typedRecord) withMemo.set(row.id, (typedRecord = { ...record, memo: row.memo ?? null }));
      return typedRecord;
    };
    return {
      VENDOR: worked(rows.VENDOR, (_, record) => record),
      USER: worked(rows.USER, (_, record) => record),
      RECORD_TYPE: worked(rows.RECORD_TYPE, typed),
    };
  },

  /**
   * Codes the record's lines with what `decide` accepts of the suggestions for it now (only fields a line has no
   * value in), under the record clock; in PREPARE or REVIEW only (409 RECORD_NOT_EDITABLE) and at `version`
   * (409 VERSION_CONFLICT). Nothing to accept changes nothing (the record answered as it is).
   */
  async accept<A extends AcceptedSuggestion>(
    ex: Executor,
    caller: Caller,
    id: string,
    version: number,
    lineIds: readonly string[] | undefined,
    decide: (subject: SuggestionSubject) => Promise<A[]>,
  ): Promise<RecordWithSingleEntry & { accepted: A[] }> {
    // The clock lock first, as every record writer takes it: the record read is current until the commit.
    await recordClock.lock(ex, caller.accountId);
    const record = await accountingRepository.find(ex, caller.accountId, id);
    if (!record) throw errors.notFound(`Accounting record ${id}`, { accounting_record_id: id });
    if (!EDITABLE.includes(record.review_status)) throw errors.recordNotEditable(id, record.review_status, EDITABLE);
    if (version !== Number(record.version)) throw errors.versionConflict(version, Number(record.version));
    if (lineIds) {
      const lines: LineItem[] = JSON.parse(record.line_items_json);
      const economic = new Map(economicLines(record.type, lines).map((l) => [l.id, lines.indexOf(l)]));
      checkLineIds(
        lineIds.map((lineId, i) => ({ path: `/line_ids/${i}`, id: lineId })),
        economic,
        lines,
      );
    }
    const accepted = await decide(subjectOf(record));
    if (accepted.length === 0) {
      return {
        record: AccountingRecordShape.toObject(record, { singleEntry: false, accountId: caller.accountId }),
        single_entry: AccountingRecordShape.toObject(record, { singleEntry: true, accountId: caller.accountId }),
        accepted,
      };
    }
    const byLine = new Map<string, A[]>();
    for (const a of accepted) byLine.set(a.line_id, [...(byLine.get(a.line_id) ?? []), a]);
    const edited = await editRecord(ex, caller, id, version, async (_record, lines, economic) => {
      const groups = [...byLine].map(([lineId, list]) => ({
        path: `/lines/${lineId}`,
        lineId,
        refs: list.map((a) => ({ field_id: a.field_id, svc_id: a.svc_id })),
      }));
      const codings = await codingsFor(ex, caller, groups);
      const changes = groups.map((g, i) => {
        const at = economic.get(g.lineId)!;
        const before = lines[at]!.accounting_field_values;
        const after = [...before, ...codings[i]!];
        lines[at] = { ...lines[at]!, accounting_field_values: after };
        return { line_id: g.lineId, before, after };
      });
      return { lines, type: 'CODED', changes: { lines: changes, accepted_suggestions: accepted } };
    });
    return { ...edited, accepted };
  },
};
