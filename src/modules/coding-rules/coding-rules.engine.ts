import type { Coding } from '../field-values/field-values.service.js';
import type { RuleConditionsInput } from './coding-rules.schemas.js';

/**
 * What rules decide, without a database: which rules match a record, and what each of its economic lines gets.
 * Precedence (docs/coding-rules.md): rules are tried in order (position, then creation); for each line and each
 * field, the first matching rule that sets the field decides its value, and later rules do not touch it; the memo
 * likewise. A decided value is written only where the line has no value for the field, or where `mayReplace` says
 * the value there may go (one a rule set, or any with overwrite).
 */

/** A value as a line shows it. */
export interface ShownValue {
  svc_id: string;
  value: string;
}

/** A record as rules see it: what conditions match on, and its economic lines' current coding. */
export interface RuleSubject {
  /** null at ingestion (the record has no id yet) */
  id: string | null;
  type: string;
  source_type: string;
  vendor_name: string | null;
  /** A card record's merchant category code (ISO 18245), null when it has none. */
  merchant_category_code: string | null;
  user_id: string | null;
  user_email: string | null;
  user_department_id: string | null;
  user_location_id: string | null;
  currency: string;
  amount_minor: number;
  memo: string | null;
  has_receipt: boolean;
  lines: { id: string | null; memo: string | null; values: ReadonlyMap<string, ShownValue> }[];
}

/** A rule ready to apply: its values resolved and usable (a broken rule never gets here). */
export interface UsableRule {
  rule_id: string;
  version: number;
  conditions: RuleConditionsInput;
  /** The amount condition's bounds in minor units of its currency. */
  minMinor: number | null;
  maxMinor: number | null;
  codings: Coding[];
  memo: string | null;
}

export interface FieldChange {
  field_id: string;
  coding: Coding;
  before: ShownValue | null;
  rule_id: string;
  rule_version: number;
}

export interface LineDecision {
  /** The line's index among the subject's lines. */
  line: number;
  fields: FieldChange[];
  memo: { before: string | null; after: string; rule_id: string; rule_version: number } | null;
}

const lower = (text: string | null) => (text === null ? null : text.toLowerCase());

/** Whether some economic line of the subject carries one of `values` for the field. */
const carries = (s: RuleSubject, fieldId: string, values: readonly string[]) =>
  s.lines.some((line) => {
    const value = line.values.get(fieldId);
    return value !== undefined && values.includes(value.svc_id);
  });

export function matches(rule: UsableRule, s: RuleSubject): boolean {
  const c = rule.conditions;
  if (c.record_types && !c.record_types.some((t) => t === s.type)) return false;
  if (c.source_types && !c.source_types.some((t) => t === s.source_type)) return false;
  if (c.vendor_name) {
    const name = lower(s.vendor_name);
    const wanted = c.vendor_name.value.toLowerCase();
    if (name === null) return false;
    if (c.vendor_name.operator === 'EQUALS' ? name !== wanted : !name.includes(wanted)) return false;
  }
  if (
    c.merchant_category_codes &&
    (s.merchant_category_code === null || !c.merchant_category_codes.includes(s.merchant_category_code))
  ) {
    return false;
  }
  if (c.user_ids && (s.user_id === null || !c.user_ids.includes(s.user_id))) return false;
  if (c.user_emails) {
    const email = lower(s.user_email);
    if (email === null || !c.user_emails.some((e) => e.toLowerCase() === email)) return false;
  }
  if (c.user_department_ids && !c.user_department_ids.some((d) => d === s.user_department_id)) return false;
  if (c.user_location_ids && !c.user_location_ids.some((l) => l === s.user_location_id)) return false;
  if (c.line_field_values && !c.line_field_values.every((entry) => carries(s, entry.field_id, entry.svc_ids))) {
    return false;
  }
  if (c.amount) {
    if (s.currency !== c.amount.currency) return false;
    if (rule.minMinor !== null && s.amount_minor < rule.minMinor) return false;
    if (rule.maxMinor !== null && s.amount_minor > rule.maxMinor) return false;
  }
  if (c.memo_contains !== undefined) {
    const memo = lower(s.memo);
    if (memo === null || !memo.includes(c.memo_contains.toLowerCase())) return false;
  }
  if (c.has_receipt !== undefined && c.has_receipt !== s.has_receipt) return false;
  return true;
}

/**
 * What the rules change on the subject's lines (only lines with a change). `mayReplace(line, field, value)` says
 * whether a value already on a line may be replaced; `overwrite` whether a memo already there may be.
 */
export function decide(
  rules: readonly UsableRule[],
  subject: RuleSubject,
  mayReplace: (line: number, fieldId: string, current: ShownValue) => boolean,
  overwrite: boolean,
): LineDecision[] {
  const matching = rules.filter((rule) => matches(rule, subject));
  if (matching.length === 0) return [];
  const out: LineDecision[] = [];
  subject.lines.forEach((line, i) => {
    const decided = new Set<string>();
    const fields: FieldChange[] = [];
    let memo: LineDecision['memo'] = null;
    let memoDecided = false;
    for (const rule of matching) {
      for (const coding of rule.codings) {
        if (decided.has(coding.field_id)) continue;
        decided.add(coding.field_id);
        const current = line.values.get(coding.field_id) ?? null;
        if (current?.svc_id === coding.svc_id) continue;
        if (current && !mayReplace(i, coding.field_id, current)) continue;
        const by = { rule_id: rule.rule_id, rule_version: rule.version };
        fields.push({ field_id: coding.field_id, coding, before: current, ...by });
      }
      if (rule.memo !== null && !memoDecided) {
        memoDecided = true;
        const empty = line.memo === null || line.memo === '';
        if ((empty || overwrite) && line.memo !== rule.memo) {
          memo = { before: line.memo, after: rule.memo, rule_id: rule.rule_id, rule_version: rule.version };
        }
      }
    }
    if (fields.length > 0 || memo) out.push({ line: i, fields, memo });
  });
  return out;
}
