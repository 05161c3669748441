import { SvcApiError } from '@svc/client';
import type { RuleBody } from './rule-draft';

/** The form's inputs a refusal can point at ('value:<field id>' for a field's value picker). */
export type InputKey =
  | 'name'
  | 'conditions'
  | 'recordTypes'
  | 'sourceTypes'
  | 'vendor'
  | 'userEmails'
  | 'amount'
  | 'memoContains'
  | 'hasReceipt'
  | 'lineValues'
  | 'merchantCodes'
  | 'actions'
  | 'memo'
  | `value:${string}`;

/** A refused rule's problems: in words next to their inputs, and all of them as a list. */
export interface Refusal {
  byInput: Partial<Record<InputKey, string[]>>;
  /** Every problem in words, each starting with what it is about ("Amount: has min 300 greater than max 100…"). */
  all: string[];
}

interface Problem {
  path: string;
  message: string;
  field_id?: string;
}

const CONDITIONS: Record<string, InputKey> = {
  record_types: 'recordTypes',
  source_types: 'sourceTypes',
  vendor_name: 'vendor',
  user_emails: 'userEmails',
  amount: 'amount',
  memo_contains: 'memoContains',
  has_receipt: 'hasReceipt',
  line_field_values: 'lineValues',
  merchant_category_codes: 'merchantCodes',
};

const LABELS: Record<string, string> = {
  name: 'Name',
  conditions: 'Conditions',
  recordTypes: 'Record types',
  sourceTypes: 'Source types',
  vendor: 'Vendor name',
  userEmails: 'User emails',
  amount: 'Amount',
  memoContains: 'Memo contains',
  hasReceipt: 'Receipt',
  lineValues: "A line's value",
  merchantCodes: 'Merchant category codes',
  actions: 'Actions',
  memo: 'Memo to set',
};

function problemsOf(error: SvcApiError): Problem[] {
  const details = error.details as { errors?: unknown } | null | undefined;
  const list = Array.isArray(details?.errors) ? details.errors : [];
  return list.flatMap((item: unknown) => {
    if (typeof item !== 'object' || item === null) return [];
    const p: Record<string, unknown> = { ...item };
    return typeof p.path === 'string' && typeof p.message === 'string'
      ? [{ path: p.path, message: p.message, ...(typeof p.field_id === 'string' ? { field_id: p.field_id } : {}) }]
      : [];
  });
}

/** Which input a JSON pointer into the body (or a preview's, under /rule) is about; null: the rule as a whole. */
function inputOf(problem: Problem, body: RuleBody): InputKey | null {
  const parts = problem.path
    .replace(/^\/rule(?=\/|$)/, '')
    .split('/')
    .slice(1);
  const [top, member, index] = parts;
  if (top === 'name') return 'name';
  if (top === 'conditions') return (member && CONDITIONS[member]) || 'conditions';
  if (top === 'actions') {
    if (member === 'memo') return 'memo';
    if (member === 'field_values') {
      const fieldId = problem.field_id ?? (index ? body.actions.field_values[Number(index)]?.field_id : undefined);
      return fieldId ? `value:${fieldId}` : 'actions';
    }
    return 'actions';
  }
  return null;
}

/**
 * The problems of a refused save or preview (400 INVALID_REQUEST, 404 NOT_FOUND, 422 INVALID_CODING, each with
 * details.errors), placed by their paths; null for any other answer (shown as an error of its own).
 */
export function refusalOf(error: unknown, body: RuleBody, fieldName: (fieldId: string) => string): Refusal | null {
  if (!(error instanceof SvcApiError)) return null;
  const problems = problemsOf(error);
  if (problems.length === 0) return null;
  const refusal: Refusal = { byInput: {}, all: [] };
  for (const problem of problems) {
    const key = inputOf(problem, body);
    const label = key?.startsWith('value:') ? fieldName(key.slice(6)) : key ? LABELS[key] : 'The rule';
    const words = `${label}: ${problem.message}`;
    refusal.all.push(words);
    if (key) (refusal.byInput[key] ??= []).push(problem.message);
  }
  return refusal;
}
