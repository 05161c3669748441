import type { Side } from '../accounting/export-selection.service.js';

/** Amounts as the writers print them: integers in minor units, never a floating-point sum. */

/** Integer minor units → "-171.75": string arithmetic, never a floating-point sum. */
export function decimal(minor: number, exponent: number): string {
  const digits = Math.abs(minor)
    .toString()
    .padStart(exponent + 1, '0');
  const sign = minor < 0 ? '-' : '';
  if (exponent === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** The signed amount: debits positive, credits negative (as both ledger tools book them). */
export const signed = (p: { side: Side; minor: number }): number => (p.side === 'DEBIT' ? p.minor : -p.minor);
