import type { AccountingRecord, CodingRule, CodingRulePreviewRequest } from '@svc/client';
import type { SourceType } from '../../lib/labels';
import { recordTitle } from '../../lib/labels';

export type Conditions = CodingRule['conditions'];
export type Actions = CodingRule['actions'];
export type RecordType = AccountingRecord['type'];
export type RuleBody = CodingRulePreviewRequest['rule'];

/** A value chosen for a field: its svc_id, and its name to show (as the record page's pickers hold it). */
export interface ValueChoice {
  svc_id: string;
  label: string;
}

/** The form's state: text as typed; turned into the API's body only when previewed or saved. */
export interface RuleDraft {
  name: string;
  recordTypes: RecordType[];
  sourceTypes: SourceType[];
  vendorOperator: '' | 'EQUALS' | 'CONTAINS';
  vendorValue: string;
  /** Emails, separated by commas, spaces or lines. */
  userEmails: string;
  currency: string;
  amountMin: string;
  amountMax: string;
  memoContains: string;
  hasReceipt: '' | 'true' | 'false';
  /** Line conditions: some economic line carries one of these values of the field (one entry per field). */
  lineValues: LineValuesDraft[];
  /** Merchant category codes as typed, separated by commas, spaces or lines. */
  merchantCodes: string;
  /** Field id → the value the rule sets (null: none). Fields the form does not show are kept as they are. */
  values: Record<string, ValueChoice | null>;
  memo: string;
  /** Conditions the form does not edit (set through the API): kept as they are. */
  kept: Pick<Conditions, 'user_ids' | 'user_department_ids' | 'user_location_ids'>;
}

/** One line condition as the form holds it: a field ('' until chosen) and the values chosen for it. */
export interface LineValuesDraft {
  /** Tells entries apart while they are edited (not sent). */
  key: number;
  fieldId: string;
  values: ValueChoice[];
}

/** The references to values a rule's line conditions hold, for looking up their names. */
export const lineValueRefs = (c: Conditions): { field_id: string; svc_id: string }[] =>
  (c.line_field_values ?? []).flatMap((entry) => entry.svc_ids.map((svc_id) => ({ field_id: entry.field_id, svc_id })));

/** The codes typed, as the API takes them: split, without repeats (each checked by `merchantCodeProblem`). */
export const merchantCodesOf = (text: string): string[] => [...new Set(text.split(/[\s,;]+/).filter((c) => c !== ''))];

/** What is wrong with the codes typed, in words, or null: each must be four digits (ISO 18245). */
export function merchantCodeProblem(text: string): string | null {
  const wrong = merchantCodesOf(text).filter((code) => !/^[0-9]{4}$/.test(code));
  if (wrong.length === 0) return null;
  const listed = wrong.map((code) => `“${code}”`).join(', ');
  return `A merchant category code is four digits: ${listed} ${wrong.length === 1 ? 'is' : 'are'} not.`;
}

export const emptyDraft = (): RuleDraft => ({
  name: '',
  recordTypes: [],
  sourceTypes: [],
  vendorOperator: '',
  vendorValue: '',
  userEmails: '',
  currency: '',
  amountMin: '',
  amountMax: '',
  memoContains: '',
  hasReceipt: '',
  lineValues: [],
  merchantCodes: '',
  values: {},
  memo: '',
  kept: {},
});

/** A saved rule as the form edits it; `names` gives each value's name (svc_id → name). */
export function draftOfRule(rule: Pick<CodingRule, 'name' | 'conditions' | 'actions'>, names: Map<string, string>) {
  const c = rule.conditions;
  const draft: RuleDraft = {
    ...emptyDraft(),
    name: rule.name,
    recordTypes: [...(c.record_types ?? [])],
    sourceTypes: [...(c.source_types ?? [])],
    vendorOperator: c.vendor_name?.operator ?? '',
    vendorValue: c.vendor_name?.value ?? '',
    userEmails: (c.user_emails ?? []).join(', '),
    currency: c.amount?.currency ?? '',
    amountMin: c.amount?.min === undefined ? '' : String(c.amount.min),
    amountMax: c.amount?.max === undefined ? '' : String(c.amount.max),
    memoContains: c.memo_contains ?? '',
    hasReceipt: c.has_receipt === undefined ? '' : c.has_receipt ? 'true' : 'false',
    lineValues: (c.line_field_values ?? []).map((entry, key) => ({
      key,
      fieldId: entry.field_id,
      values: entry.svc_ids.map((svc_id) => ({ svc_id, label: names.get(svc_id) ?? svc_id })),
    })),
    merchantCodes: (c.merchant_category_codes ?? []).join(', '),
    memo: rule.actions.memo ?? '',
    kept: {
      ...(c.user_ids ? { user_ids: c.user_ids } : {}),
      ...(c.user_department_ids ? { user_department_ids: c.user_department_ids } : {}),
      ...(c.user_location_ids ? { user_location_ids: c.user_location_ids } : {}),
    },
  };
  for (const v of rule.actions.field_values) {
    draft.values[v.field_id] = { svc_id: v.svc_id, label: names.get(v.svc_id) ?? v.svc_id };
  }
  return draft;
}

/**
 * "Rule from this record": its vendor's name (EQUALS), its source type, and each field's value where every
 * economic line of the record carries the same one (a field the lines disagree on, or leave uncoded, is left out).
 */
export function draftFromRecord(singleEntry: AccountingRecord): RuleDraft {
  const draft = emptyDraft();
  const vendor = singleEntry.vendor?.name?.trim();
  draft.name = `Rule from ${recordTitle(singleEntry)}`;
  if (vendor) {
    draft.vendorOperator = 'EQUALS';
    draft.vendorValue = vendor;
  }
  draft.sourceTypes = [singleEntry.source_type];
  const [first, ...others] = singleEntry.line_items;
  for (const coded of first?.accounting_field_values ?? []) {
    const agreed = others.every((line) =>
      line.accounting_field_values.some(
        (c) => c.svc_field_id === coded.svc_field_id && c.svc_field_value_id === coded.svc_field_value_id,
      ),
    );
    if (agreed) draft.values[coded.svc_field_id] = { svc_id: coded.svc_field_value_id, label: coded.field_value_name };
  }
  return draft;
}

const amountOf = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text));

/** The API's conditions and actions for the draft: only what is filled in (the service checks the rest). */
export function bodyOf(draft: RuleDraft): RuleBody {
  const emails = draft.userEmails.split(/[\s,;]+/).filter((e) => e !== '');
  const min = amountOf(draft.amountMin);
  const max = amountOf(draft.amountMax);
  const currency = draft.currency.trim().toUpperCase();
  // Entries without a field or a value say nothing yet: left out (the service would refuse them as empty).
  const lineValues = draft.lineValues
    .filter((entry) => entry.fieldId !== '' && entry.values.length > 0)
    .map((entry) => ({ field_id: entry.fieldId, svc_ids: [...new Set(entry.values.map((v) => v.svc_id))] }));
  // Sent as typed, a wrong code included: the service refuses it, pointed at this input, as the form shows already.
  const merchantCodes = merchantCodesOf(draft.merchantCodes);
  const conditions: Conditions = {
    ...(draft.recordTypes.length > 0 ? { record_types: draft.recordTypes } : {}),
    ...(draft.sourceTypes.length > 0 ? { source_types: draft.sourceTypes } : {}),
    ...(draft.vendorOperator && draft.vendorValue.trim() !== ''
      ? { vendor_name: { operator: draft.vendorOperator, value: draft.vendorValue.trim() } }
      : {}),
    ...(emails.length > 0 ? { user_emails: [...new Set(emails)] } : {}),
    ...(currency !== '' || min !== undefined || max !== undefined
      ? { amount: { currency, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) } }
      : {}),
    ...(draft.memoContains.trim() !== '' ? { memo_contains: draft.memoContains.trim() } : {}),
    ...(draft.hasReceipt !== '' ? { has_receipt: draft.hasReceipt === 'true' } : {}),
    ...(lineValues.length > 0 ? { line_field_values: lineValues } : {}),
    ...(merchantCodes.length > 0 ? { merchant_category_codes: merchantCodes } : {}),
    ...draft.kept,
  };
  const actions: Actions = {
    field_values: Object.entries(draft.values).flatMap(([field_id, choice]) =>
      choice ? [{ field_id, svc_id: choice.svc_id }] : [],
    ),
    ...(draft.memo.trim() !== '' ? { memo: draft.memo.trim() } : {}),
  };
  return { conditions, actions };
}
