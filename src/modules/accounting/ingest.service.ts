import type { Executor } from '../../db/database.js';
import { errors, type ValidationProblem } from '../../errors.js';
import { isoToMicros } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuthContext } from '../auth/auth.service.js';
import { recordRowToRecord } from './accounting.dto.js';
import { accountingRepository, CountDeltas, type FieldValueRef } from './accounting.repository.js';
import type { AccountingRecordDto, IngestItemInput } from './accounting.schemas.js';
import type { StoredRecord } from './accounting.tables.js';
import { buildLineItems, lineItemsOf, sourceTypeOf, type AccountingFieldValue, type EconomicLine } from './ledger.js';
import { formatMoney, toMinor, type Money } from './money.js';
import { recordClock } from './record-clock.js';

interface CheckedItem {
  item: IngestItemInput;
  amount: number;
  originalAmount: number | null;
  lines: { amount: number; memo: string | null; refs: { field_id: string; svc_id: string }[] }[];
}

function minorOf(money: Money, path: string, problems: ValidationProblem[]): number | null {
  const minor = toMinor(money);
  if (typeof minor === 'number') return minor;
  problems.push({ path: `${path}/${minor.at}`, message: minor.message });
  return null;
}

/** Money rules the schema cannot express: currency table, decimals, lines summing to the record's amount. */
function checkItem(item: IngestItemInput, path: string, problems: ValidationProblem[]): CheckedItem {
  const amount = minorOf(item.amount, `${path}/amount`, problems);
  const originalAmount = item.original_amount
    ? minorOf(item.original_amount, `${path}/original_amount`, problems)
    : null;
  if (!item.lines)
    return { item, amount: amount ?? 0, originalAmount, lines: [{ amount: amount ?? 0, memo: null, refs: [] }] };
  const given = item.lines;
  const lines = given.map((line, j) => {
    const at = `${path}/lines/${j}`;
    if (line.amount.currency !== item.amount.currency) {
      problems.push({
        path: `${at}/amount/currency`,
        message: `must be ${item.amount.currency}, the record's currency`,
      });
    }
    const refs = line.field_values ?? [];
    const fields = new Set<string>();
    refs.forEach((ref, k) => {
      if (fields.has(ref.field_id)) {
        problems.push({ path: `${at}/field_values/${k}/field_id`, message: 'codes the same field twice in one line' });
      }
      fields.add(ref.field_id);
    });
    return { amount: minorOf(line.amount, `${at}/amount`, problems) ?? 0, memo: line.memo ?? null, refs };
  });
  if (amount !== null) {
    const sum = lines.reduce((a, l) => a + l.amount, 0);
    if (sum !== amount && given.every((l) => l.amount.currency === item.amount.currency)) {
      problems.push({
        path: `${path}/lines`,
        message: `must sum to the record's amount ${formatMoney(amount, item.amount.currency)}, not ${formatMoney(sum, item.amount.currency)}`,
      });
    }
  }
  return { item, amount: amount ?? 0, originalAmount, lines };
}

const codingOf = (ref: FieldValueRef): AccountingFieldValue => ({
  svc_field_id: ref.field_id,
  remote_field_id: ref.field_remote_id,
  svc_field_value_id: ref.svc_id,
  remote_field_value_id: ref.remote_id,
  field_name: ref.field_name,
  field_value_name: ref.value,
});

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

export const ingestService = {
  /**
   * Creates records from source activity, all or none. Field values are resolved now and kept on the line
   * (names included): a record shows the coding it was booked with, as an exported ledger entry must.
   */
  async create(
    db: Executor,
    auth: AuthContext,
    items: readonly IngestItemInput[],
  ): Promise<{ items: AccountingRecordDto[] }> {
    const problems: ValidationProblem[] = [];
    const checked = items.map((item, i) => checkItem(item, `/items/${i}`, problems));
    if (problems.length > 0) throw errors.invalidRequest(problems);

    const wanted = checked.flatMap((c) => c.lines.flatMap((l) => l.refs));
    const found =
      wanted.length === 0
        ? []
        : await accountingRepository.fieldValues(
            db,
            auth.accountId,
            [...new Set(wanted.map((r) => r.field_id))],
            [...new Set(wanted.map((r) => r.svc_id))],
          );
    const byValue = new Map(found.map((ref) => [ref.svc_id, ref]));
    const missing = new Map<string, { field_id: string; svc_id: string }>();
    for (const ref of wanted) {
      if (byValue.get(ref.svc_id)?.field_id !== ref.field_id) missing.set(`${ref.field_id}/${ref.svc_id}`, ref);
    }
    if (missing.size > 0) {
      const list = [...missing.values()];
      throw errors.notFound(`Field values ${list.map((r) => `${r.svc_id} (field ${r.field_id})`).join(', ')}`, {
        not_found_field_values: list,
      });
    }

    const last = await recordClock.lock(db, auth.accountId);
    const first = await recordClock.advance(db, auth.accountId, last, checked.length);
    const rows = checked.map((c, i): StoredRecord => {
      const { item } = c;
      const postedAt = isoToMicros(item.posted_at)!;
      const economic: EconomicLine[] = c.lines.map((l) => ({
        amount: l.amount,
        memo: l.memo,
        fieldValues: l.refs.map((ref) => codingOf(byValue.get(ref.svc_id)!)),
      }));
      return {
        account_id: auth.accountId,
        id: newId('accr'),
        type: item.type,
        source_type: sourceTypeOf(item.type),
        source_id: item.source_id ?? null,
        review_status: item.review_status ?? 'PREPARE',
        currency: item.amount.currency,
        amount_minor: c.amount,
        original_currency: item.original_amount ? item.original_amount.currency : null,
        original_amount_minor: c.originalAmount,
        posted_at: postedAt,
        erp_posting_date: item.erp_posting_date ? isoToMicros(item.erp_posting_date)! : postedAt,
        due_at: item.due_at ? isoToMicros(item.due_at)! : null,
        invoice_number: item.invoice_number ?? null,
        memo: item.memo ?? null,
        line_items_json: JSON.stringify(
          lineItemsOf(
            buildLineItems(item.type, c.amount, c.originalAmount, economic),
            item.amount.currency,
            item.original_amount?.currency ?? null,
          ),
        ),
        user_json: json(item.user),
        vendor_json: json(item.vendor),
        receipts_json: json(item.receipts),
        last_export_json: null,
        version: 1,
        created_at: first + i,
        updated_at: first + i,
      };
    });
    await accountingRepository.insertMany(db, rows);
    const deltas = new CountDeltas();
    for (const row of rows) deltas.add(row.source_type, row.review_status, 1);
    await accountingRepository.adjustCounts(db, auth.accountId, deltas);
    return { items: rows.map((row) => recordRowToRecord(row)) };
  },
};
