import { auditService, type AuditSource } from '../audit/audit.service.js';
import type { Executor } from '../../db/database.js';
import { errors, type ReceiptShortfall, type ValidationProblem } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import type { Tenant } from '../auth/auth.service.js';
import type { RecordType } from './ledger.js';
import { CURRENCY_EXPONENTS, formatMoney } from './money.js';
import { receiptPolicyRepository as repo } from './receipt-policy.repository.js';
import type { ReceiptPolicyDto, ReceiptRule } from './receipt-policy.schemas.js';

/**
 * The account's receipt policy (docs/receipts.md, "Receipt policy"): per currency, an amount above which a record
 * of the named types needs a receipt before it may be READY_FOR_EXPORT. Checked where required coding is: a move
 * there (one record or many, and `allowed_moves`: move-rules.ts) and a creation there (ingestion).
 *
 * The amount compared is the record's `amount`: its total, in its own currency (amount_minor), which every record
 * has; not the original amount (a foreign charge's face value, often absent) nor the billing amount. A rule
 * applies only to records in its currency: no exchange rate is applied. Any receipt counts, one uploaded to svc or
 * one the source system sent with its own links.
 */

/** What the policy reads of a record (or of an item being created). */
export interface ReceiptSubject {
  type: RecordType;
  currency: string;
  amountMinor: number;
  receipts: number;
}

export type { ReceiptRule, ReceiptShortfall };

/** Each problem of a policy the schema accepted: unknown currencies and a currency given twice, by pointer. */
function problemsOf(rules: readonly ReceiptRule[]): ValidationProblem[] {
  const seen = new Map<string, number>();
  return rules.flatMap((rule, i): ValidationProblem[] => {
    const path = `/rules/${i}/currency`;
    if (!CURRENCY_EXPONENTS.has(rule.currency)) return [{ path, message: 'must be an ISO 4217 currency code' }];
    const first = seen.get(rule.currency);
    if (first !== undefined)
      return [{ path, message: `repeats ${rule.currency} of /rules/${first}: one rule per currency` }];
    seen.set(rule.currency, i);
    return [];
  });
}

export const receiptPolicy = {
  /** The account's rules, by currency ([] when it has set none). */
  async rules(ex: Executor, tenant: Tenant): Promise<ReceiptRule[]> {
    const row = await repo.find(ex, tenant.accountId);
    return row ? JSON.parse(row.rules_json) : [];
  },

  async get(ex: Executor, tenant: Tenant): Promise<ReceiptPolicyDto> {
    const row = await repo.find(ex, tenant.accountId);
    if (!row) return { rules: [], updated_at: null };
    return { rules: JSON.parse(row.rules_json), updated_at: microsToIso(Number(row.updated_at)) };
  },

  /**
   * Replaces the policy (400 INVALID_REQUEST naming each unknown or repeated currency; nothing stored then); the
   * change is in the account's audit log (account.settings_changed). Records already READY_FOR_EXPORT stay.
   */
  async set(ex: Executor, source: AuditSource, change: { rules: readonly ReceiptRule[] }): Promise<ReceiptPolicyDto> {
    const problems = problemsOf(change.rules);
    if (problems.length > 0) throw errors.invalidRequest(problems);
    const rules = [...change.rules]
      .map((r) => ({ currency: r.currency, above_minor: r.above_minor, record_types: [...r.record_types] }))
      .sort((a, b) => (a.currency < b.currency ? -1 : 1));
    const before = await receiptPolicy.rules(ex, source);
    const now = nowMicros();
    await repo.upsert(ex, { account_id: source.accountId, rules_json: JSON.stringify(rules), updated_at: now });
    await auditService.record(
      ex,
      source,
      'account.settings_changed',
      { type: 'account', id: source.accountId },
      { receipt_rules_before: before, receipt_rules: rules },
    );
    return { rules, updated_at: microsToIso(now) };
  },

  /** What the record lacks: the rule it falls under when it needs a receipt and has none; null otherwise. */
  shortfall(rules: readonly ReceiptRule[], subject: ReceiptSubject): ReceiptShortfall | null {
    if (subject.receipts > 0) return null;
    const rule = rules.find((r) => r.currency === subject.currency);
    if (!rule || subject.amountMinor <= rule.above_minor || !rule.record_types.includes(subject.type)) return null;
    return {
      record_type: subject.type,
      currency: subject.currency,
      amount_minor: subject.amountMinor,
      above_minor: rule.above_minor,
    };
  },

  /** The amounts of a shortfall in words ("171.75 USD"), for messages and reasons. */
  shown(shortfall: ReceiptShortfall): { amount: string; above: string } {
    return {
      amount: formatMoney(shortfall.amount_minor, shortfall.currency),
      above: formatMoney(shortfall.above_minor, shortfall.currency),
    };
  },

  /** 422 RECEIPT_REQUIRED naming every item (by its path) created READY_FOR_EXPORT without a receipt it needs. */
  async assertReceipted(
    ex: Executor,
    tenant: Tenant,
    items: readonly { path: string; subject: ReceiptSubject }[],
  ): Promise<void> {
    if (items.length === 0) return;
    const rules = await receiptPolicy.rules(ex, tenant);
    const lacking = items.flatMap(({ path, subject }) => {
      const shortfall = receiptPolicy.shortfall(rules, subject);
      return shortfall ? [{ path, ...shortfall }] : [];
    });
    if (lacking.length > 0) throw errors.receiptsRequiredAtIngestion(lacking);
  },
};
