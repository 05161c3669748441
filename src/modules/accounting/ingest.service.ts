import type { Executor } from '../../db/database.js';
import { errors, type ValidationProblem } from '../../errors.js';
import { isoToMicros } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Caller } from '../auth/auth.service.js';
import { codingRulesService } from '../coding-rules/coding-rules.service.js';
import { fieldValuesService } from '../field-values/field-values.service.js';
import { accountingRepository, CountDeltas } from './accounting.repository.js';
import {
  AccountingRecordShape,
  storedForm,
  type AccountingRecordDto,
  type IngestItemInput,
} from './accounting.schemas.js';
import type { StoredRecord } from './accounting.tables.js';
import { buildLineItems, lineItemsOf, sourceTypeOf } from './ledger.js';
import { recordEvents, type RecordEvent, type RuleCoding } from './history.js';
import { sortableAmount } from './money.js';
import { checkItem } from './ingest-checks.js';
import { attachNamedReceipts, checkNamedReceipts } from './ingest-receipts.js';
import { receiptPolicy } from './receipt-policy.js';
import { reviewSettings } from './review-settings.js';
import { requiredCoding } from './required-coding.js';
import { codeDraftsByRules, marksOf, ruleCodingsOf } from './rule-coding.js';
import { recordClock } from './record-clock.repository.js';
import { codingOf } from './codings.js';
import { defaultSourceStatus } from './source-status.js';
import { importedExport, reportedAt, type RecordDraft } from './record-drafts.js';

/** Where `svc seed` has long found it. */
export { codingOf };

export type { RecordDraft };

/**
 * Writes the drafts under the account's record clock (each its own updated_at, in order) with their details,
 * the kept counts and each record's first history event, in the caller's transaction.
 */
async function insertDrafts(
  ex: Executor,
  caller: Caller,
  drafts: readonly RecordDraft[],
  event: 'INGESTED' | 'IMPORTED',
): Promise<StoredRecord[]> {
  const last = await recordClock.lock(ex, caller.accountId);
  const first = await recordClock.advance(ex, caller.accountId, last, drafts.length);
  const ruleCodings: RuleCoding[][] = [];
  const rows = drafts.map((d, i): StoredRecord => {
    const time = first + i;
    const lineItems = lineItemsOf(
      buildLineItems(d.type, d.amountMinor, d.originalAmountMinor, d.billingAmountMinor ?? d.amountMinor, d.lines),
      d.currency,
      d.originalCurrency,
      d.billingCurrency ?? d.currency,
    );
    // The economic lines come first, in the draft's order.
    ruleCodings.push((d.ruleDecisions ?? []).flatMap((x) => ruleCodingsOf(lineItems[x.line]!.id, x)));
    return {
      account_id: caller.accountId,
      id: newId('accr'),
      type: d.type,
      source_type: sourceTypeOf(d.type),
      source_id: d.sourceId,
      review_status: d.autoSubmitted ? 'REVIEW' : d.reviewStatus,
      currency: d.currency,
      amount_minor: d.amountMinor,
      original_currency: d.originalCurrency,
      original_amount_minor: d.originalAmountMinor,
      posted_at: d.postedAt,
      erp_posting_date: d.erpPostingDate,
      due_at: d.dueAt,
      invoice_number: d.invoiceNumber,
      memo: d.memo,
      line_items_json: storedForm.lineItems(lineItems),
      // A record's user is a user of its account.
      // Each in the answer's form, as the response serializer writes it (record.shape.ts, storedForm).
      user_json: d.user === null ? null : storedForm.user({ ...d.user, account_id: caller.accountId }),
      vendor_json: d.vendor === null || d.vendor === undefined ? null : storedForm.vendor(d.vendor),
      receipts_json: d.receipts === null || d.receipts === undefined ? null : storedForm.receipts(d.receipts),
      status: d.status,
      billing_currency: d.billingAmountMinor === null ? null : d.billingCurrency,
      billing_amount_minor: d.billingCurrency === null ? null : d.billingAmountMinor,
      merchant_category_code: d.merchantCategoryCode ?? null,
      last_export_json:
        d.lastExport === null ? null : JSON.stringify({ ...d.lastExport, reported_at: reportedAt(d, time) }),
      version: d.version + (d.lastExport === null ? 0 : 1) + (d.autoSubmitted ? 1 : 0),
      created_at: time,
      updated_at: time,
      amount_sort: sortableAmount(d.amountMinor, d.currency) ?? 0,
      uncoded_lines: d.lines.filter((l) => l.fieldValues.length === 0).length,
      vendor_name: typeof d.vendor?.name === 'string' ? d.vendor.name : null,
      user_email: typeof d.user?.email === 'string' ? d.user.email : null,
    };
  });
  await accountingRepository.insertMany(ex, rows);
  const deltas = new CountDeltas();
  for (const row of rows) deltas.add(row.source_type, row.review_status, 1);
  await accountingRepository.adjustCounts(ex, caller.accountId, deltas);
  const marks = rows.flatMap((row, i) => marksOf(row.id, ruleCodings[i]!));
  await codingRulesService.markApplied(ex, caller, marks, first);
  await recordEvents(
    ex,
    caller,
    rows.flatMap((row, i): RecordEvent[] => {
      const d = drafts[i]!;
      const created: RecordEvent = {
        recordId: row.id,
        version: d.version,
        type: event,
        occurredAt: row.updated_at,
        changes: {
          review_status: d.reviewStatus,
          ...(ruleCodings[i]!.length > 0 ? { coded_by_rules: ruleCodings[i]! } : {}),
        },
      };
      const events: RecordEvent[] = [created];
      if (d.lastExport !== null) events.push(importedExport(row, d, d.lastExport, d.version + 1));
      if (d.autoSubmitted) {
        const move = { from: d.reviewStatus, to: row.review_status };
        events.push({
          ...created,
          version: row.version,
          type: 'MOVED',
          changes: { review_status: move, auto_submitted: true },
        });
      }
      return events;
    }),
  );
  return rows;
}

export const ingestService = {
  /**
   * Creates records from source activity, all or none. Field values are resolved now and kept on the line
   * (names included): a record shows the coding it was booked with, as an exported ledger entry must.
   */
  async create(
    ex: Executor,
    caller: Caller,
    items: readonly IngestItemInput[],
    receiptsPerRecord: number,
  ): Promise<{ items: AccountingRecordDto[] }> {
    const problems: ValidationProblem[] = [];
    const checked = items.map((item, i) => checkItem(item, `/items/${i}`, problems));
    if (problems.length > 0) throw errors.invalidRequest(problems);
    await checkNamedReceipts(ex, caller, items, receiptsPerRecord);

    const wanted = checked.flatMap((c) => c.lines.flatMap((l) => l.refs));
    const codings = await fieldValuesService.resolveCodings(ex, caller, wanted);
    const byValue = new Map(codings.map((coding) => [`${coding.field_id}/${coding.svc_id}`, coding]));

    const given = checked.map(({ item, amount, originalAmount, billingAmount, lines }): RecordDraft => {
      const postedAt = isoToMicros(item.posted_at)!;
      return {
        type: item.type,
        reviewStatus: item.review_status ?? 'PREPARE',
        sourceId: item.source_id ?? null,
        currency: item.amount.currency,
        amountMinor: amount,
        originalCurrency: item.original_amount ? item.original_amount.currency : null,
        originalAmountMinor: originalAmount,
        billingCurrency: billingAmount === null ? null : item.billing_amount!.currency,
        billingAmountMinor: billingAmount,
        status: item.status ?? defaultSourceStatus(item.type),
        postedAt,
        erpPostingDate: item.erp_posting_date ? isoToMicros(item.erp_posting_date)! : postedAt,
        dueAt: item.due_at ? isoToMicros(item.due_at)! : null,
        invoiceNumber: item.invoice_number ?? null,
        memo: item.memo ?? null,
        lines: lines.map((l) => ({
          amount: l.amount,
          memo: l.memo,
          fieldValues: l.refs.map((ref) => codingOf(byValue.get(`${ref.field_id}/${ref.svc_id}`)!)),
        })),
        user: item.user ?? null,
        vendor: item.vendor ?? null,
        receipts: item.receipts ?? null,
        merchantCategoryCode: item.merchant_category_code ?? null,
        lastExport: null,
        version: 1,
      };
    });
    // Coded by the account's rules in this transaction: no record is ever seen half-coded.
    const coded = await codeDraftsByRules(ex, caller, given);
    // Fully coded records go on to REVIEW, when the account asks so, in this same transaction.
    const submit = await reviewSettings.toSubmit(ex, caller, coded);
    const drafts = coded.map((d, i) => (submit[i] ? { ...d, autoSubmitted: true } : d));
    // Records created ready for export must meet the account's required coding, as a move there must.
    await requiredCoding.assertCoded(
      ex,
      caller,
      drafts.flatMap((d, i) =>
        d.reviewStatus === 'READY_FOR_EXPORT'
          ? [{ ref: { path: `/items/${i}` }, lines: d.lines.map((l) => ({ lineId: null, codings: l.fieldValues })) }]
          : [],
      ),
    );
    // And the account's receipt policy.
    await receiptPolicy.assertReceipted(
      ex,
      caller,
      drafts.flatMap((d, i) =>
        d.reviewStatus === 'READY_FOR_EXPORT'
          ? [
              {
                path: `/items/${i}`,
                subject: {
                  type: d.type,
                  currency: d.currency,
                  amountMinor: d.amountMinor,
                  // Those sent with their own links and those uploaded to svc that it names alike.
                  receipts: (d.receipts?.length ?? 0) + (items[i]!.receipt_ids?.length ?? 0),
                },
              },
            ]
          : [],
      ),
    );
    const rows = await insertDrafts(ex, caller, drafts, 'INGESTED');
    const attached = await attachNamedReceipts(
      ex,
      caller,
      items,
      rows.map((row) => row.id),
      receiptsPerRecord,
    );
    return {
      items: rows.map(
        (row, i) =>
          attached.get(i) ?? AccountingRecordShape.toObject(row, { singleEntry: false, accountId: caller.accountId }),
      ),
    };
  },

  /**
   * Writes records as given, in any review state and with an export already reported: a bulk load of history
   * (`svc seed`), trusted as the caller's own data (codings already resolved, lines summing to the amount),
   * not an API operation. Returns the new records' ids, in order.
   */
  async importRecords(ex: Executor, caller: Caller, drafts: readonly RecordDraft[]): Promise<string[]> {
    return (await insertDrafts(ex, caller, drafts, 'IMPORTED')).map((row) => row.id);
  },
};
