import type { AuthContext } from '../auth/auth.service.js';
import { EDITABLE, type ReviewStatus } from './lifecycle.js';
import { LABELS } from './move-rules.js';

/** Scopes that may code a record, split and merge its lines (the coding routes'). */
export const CODING_SCOPES = ['accounting.record.review', 'accounting.record.admin'] as const;

/** Whether the caller may change a record's coding now, and why not: what a coding request would be refused with. */
export type CodingEditable =
  { editable: true } | { editable: false; reason_code: 'FORBIDDEN' | 'RECORD_NOT_EDITABLE'; reason: string };

/**
 * The same two rules the coding, split and merge routes apply (their scopes, then EDITABLE), decided here once so
 * that the console shows the coding as editable exactly when a save would be accepted (a stale version aside).
 */
export function codingEditable(auth: AuthContext, status: ReviewStatus): CodingEditable {
  if (!CODING_SCOPES.some((scope) => auth.scopes.has(scope))) {
    return {
      editable: false,
      reason_code: 'FORBIDDEN',
      reason: 'Your role can see the coding (in the line items) but not change it.',
    };
  }
  if (!EDITABLE.includes(status)) {
    return {
      editable: false,
      reason_code: 'RECORD_NOT_EDITABLE',
      reason: `The coding can change while a record is in Prepare or Review. This record is ${LABELS[status]}: send it back to Review to change its coding.`,
    };
  }
  return { editable: true };
}
