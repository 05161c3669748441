import type { ValidationProblem } from '../../errors.js';
import type { IngestItemInput } from './accounting.schemas.js';
import { sourceTypeOf } from './ledger.js';
import { formatMoney, sortableAmount, toMinor, type Money } from './money.js';
import { SOURCE_STATUSES_BY_TYPE } from './source-status.js';

/** An ingested item as checked: its money in minor units, its lines with their codings still to resolve. */
export interface CheckedItem {
  item: IngestItemInput;
  amount: number;
  originalAmount: number | null;
  /** Minor units of the billing currency; null when the billing amount is the amount itself. */
  billingAmount: number | null;
  lines: { amount: number; memo: string | null; refs: { field_id: string; svc_id: string }[] }[];
}

function minorOf(money: Money, path: string, problems: ValidationProblem[]): number | null {
  const minor = toMinor(money);
  if (typeof minor === 'number' && sortableAmount(minor, money.currency) === null) {
    problems.push({ path: `${path}/amount`, message: 'is too large' });
    return null;
  }
  if (typeof minor === 'number') return minor;
  problems.push({ path: `${path}/${minor.at}`, message: minor.message });
  return null;
}

/** The billing amount given, in minor units; null when none is given or it is the amount itself. */
function billingOf(item: IngestItemInput, amount: number | null, path: string, problems: ValidationProblem[]) {
  if (!item.billing_amount) return null;
  const billing = minorOf(item.billing_amount, `${path}/billing_amount`, problems);
  return billing === amount && item.billing_amount.currency === item.amount.currency ? null : billing;
}

/**
 * Rules the schema cannot express: money (currency table, decimals, lines summing to the record's amount) and
 * the source status the type's activity may be in.
 */
export function checkItem(item: IngestItemInput, path: string, problems: ValidationProblem[]): CheckedItem {
  const amount = minorOf(item.amount, `${path}/amount`, problems);
  const originalAmount = item.original_amount
    ? minorOf(item.original_amount, `${path}/original_amount`, problems)
    : null;
  const billingAmount = billingOf(item, amount, path, problems);
  const statuses = SOURCE_STATUSES_BY_TYPE[item.type];
  if (item.status && !statuses.includes(item.status)) {
    problems.push({ path: `${path}/status`, message: `must be one of: ${statuses.join(', ')} for ${item.type}` });
  }
  if (item.merchant_category_code && sourceTypeOf(item.type) !== 'CARD') {
    problems.push({
      path: `${path}/merchant_category_code`,
      message: `is a card record's: ${item.type} is a ${sourceTypeOf(item.type)} type`,
    });
  }
  const checked = { item, amount: amount ?? 0, originalAmount, billingAmount };
  if (!item.lines) return { ...checked, lines: [{ amount: amount ?? 0, memo: null, refs: [] }] };
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
  return { ...checked, lines };
}
