import { auditService, type AuditSource } from '../audit/audit.service.js';
import type { Executor } from '../../db/database.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import type { Tenant } from '../auth/auth.service.js';
import type { LineDecision } from '../coding-rules/coding-rules.service.js';
import type { AccountingFieldValue } from './ledger.js';
import type { ReviewStatus } from './lifecycle.js';
import { requiredCoding } from './required-coding.js';
import { reviewSettingsRepository as repo } from './review-settings.repository.js';
import type { ReviewSettingsDto } from './review.schemas.js';

/**
 * The account's review settings (docs/coding-rules.md, "Auto-submit"). Auto-submit: a record ingested in PREPARE
 * that coding rules coded (a rule set at least one value on it) and whose every economic line then carries every
 * required field goes on to REVIEW in the ingestion's own transaction. A record the source sent coded, no rule
 * setting anything, stays in PREPARE: auto-submit vouches for the rules' work, not for the source's. "Fully coded"
 * is the account's required coding: with none required, nothing says when a record is coded enough, so auto-submit
 * moves nothing.
 */

/**
 * A new record as auto-submit reads it: the state it is created in, its economic lines' codings (after the rules)
 * and what the rules decided on its lines (none: no rule applied).
 */
export interface NewRecordCoding {
  reviewStatus: ReviewStatus;
  lines: readonly { fieldValues: readonly AccountingFieldValue[] }[];
  ruleDecisions?: readonly Pick<LineDecision, 'fields'>[];
}

/** Whether rules set at least one value on the record (a memo alone is not coding). */
const codedByRules = (r: NewRecordCoding) => (r.ruleDecisions ?? []).some((d) => d.fields.length > 0);

export const reviewSettings = {
  async get(ex: Executor, tenant: Tenant): Promise<ReviewSettingsDto> {
    const row = await repo.find(ex, tenant.accountId);
    return { auto_submit: row?.auto_submit === 1, updated_at: row ? microsToIso(Number(row.updated_at)) : null };
  },

  /** Replaces the settings; the change is in the account's audit log (account.settings_changed). */
  async set(ex: Executor, source: AuditSource, change: { auto_submit: boolean }): Promise<ReviewSettingsDto> {
    const before = await reviewSettings.get(ex, source);
    const now = nowMicros();
    await repo.upsert(ex, { account_id: source.accountId, auto_submit: change.auto_submit ? 1 : 0, updated_at: now });
    await auditService.record(
      ex,
      source,
      'account.settings_changed',
      { type: 'account', id: source.accountId },
      { auto_submit_before: before.auto_submit, auto_submit: change.auto_submit },
    );
    return { auto_submit: change.auto_submit, updated_at: microsToIso(now) };
  },

  /**
   * For each new record, whether auto-submit moves it on to REVIEW: the setting is on, the account requires
   * coding, the record would be created in PREPARE, rules set at least one of its values and none of its economic
   * lines lacks a required field.
   */
  async toSubmit(ex: Executor, tenant: Tenant, records: readonly NewRecordCoding[]): Promise<boolean[]> {
    const none = records.map(() => false);
    if (!records.some((r) => r.reviewStatus === 'PREPARE' && codedByRules(r))) return none;
    if ((await repo.find(ex, tenant.accountId))?.auto_submit !== 1) return none;
    const required = await requiredCoding.fields(ex, tenant);
    if (required.length === 0) return none;
    return records.map(
      (r) =>
        r.reviewStatus === 'PREPARE' &&
        codedByRules(r) &&
        requiredCoding.missing(required, [
          { ref: { path: '' }, lines: r.lines.map((l) => ({ lineId: null, codings: l.fieldValues })) },
        ]).length === 0,
    );
  },
};
