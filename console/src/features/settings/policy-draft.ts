import { SvcApiError, type ReceiptPolicy, type ReceiptPolicyRequest } from '@svc/client';
import { fromMinorUnits, toMinorUnits } from '../../lib/format';
import type { RecordType } from '../../lib/labels';

/** One rule as the form edits it: the amount as typed, in major units. `key` keeps React's rows apart. */
export interface PolicyRow {
  key: number;
  currency: string;
  above: string;
  recordTypes: RecordType[];
}

/** What a refusal says, by row and input ('currency', 'above', 'recordTypes'), and what it says of the whole. */
export interface PolicyProblems {
  rows: Record<number, Partial<Record<'currency' | 'above' | 'recordTypes', string[]>>>;
  policy: string[];
}

let nextKey = 0;
export const newRow = (): PolicyRow => ({ key: nextKey++, currency: '', above: '', recordTypes: [] });

export function rowsOf(policy: ReceiptPolicy): PolicyRow[] {
  return policy.rules.map((rule) => ({
    key: nextKey++,
    currency: rule.currency,
    above: fromMinorUnits(rule.above_minor, rule.currency),
    recordTypes: [...rule.record_types],
  }));
}

const add = (problems: PolicyProblems, row: number, input: 'currency' | 'above' | 'recordTypes', words: string) => {
  const at = (problems.rows[row] ??= {});
  (at[input] ??= []).push(words);
};

/**
 * The body to send, or the amounts the form cannot convert (the one thing the console checks itself: an amount
 * in major units becomes exact minor units with the currency's decimals). Everything else is the server's to say.
 */
export function bodyOf(rows: readonly PolicyRow[]): { body: ReceiptPolicyRequest } | { problems: PolicyProblems } {
  const problems: PolicyProblems = { rows: {}, policy: [] };
  const rules = rows.map((row, i) => {
    const currency = row.currency.trim().toUpperCase();
    const converted = toMinorUnits(row.above, currency);
    if ('problem' in converted) add(problems, i, 'above', `The amount ${converted.problem}.`);
    return {
      currency,
      above_minor: 'minor' in converted ? converted.minor : 0,
      record_types: row.recordTypes,
    };
  });
  return Object.keys(problems.rows).length > 0 ? { problems } : { body: { rules } };
}

/** "must be an ISO 4217 currency code" → "Must be an ISO 4217 currency code." */
const sentence = (words: string) => `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;

const INPUTS: Record<string, 'currency' | 'above' | 'recordTypes'> = {
  currency: 'currency',
  above_minor: 'above',
  record_types: 'recordTypes',
};

/** A refused save's problems (400 with details.errors), placed by their paths; null for any other answer. */
export function refusalOf(error: unknown): PolicyProblems | null {
  if (!(error instanceof SvcApiError)) return null;
  const listed = error.details?.errors;
  const list: unknown[] = Array.isArray(listed) ? listed : [];
  if (list.length === 0) return null;
  const problems: PolicyProblems = { rows: {}, policy: [] };
  for (const item of list) {
    if (typeof item !== 'object' || item === null) continue;
    const { path, message }: Record<string, unknown> = { ...item };
    if (typeof path !== 'string' || typeof message !== 'string') continue;
    const [, top, row, member] = path.split('/');
    const input = member ? INPUTS[member] : undefined;
    if (top === 'rules' && row !== undefined && input) {
      // A threshold's words are about minor units; the form shows major ones.
      add(problems, Number(row), input, input === 'above' ? 'The amount must be 0 or more.' : sentence(message));
    } else problems.policy.push(`${path || 'The policy'} ${message}`);
  }
  return problems;
}
