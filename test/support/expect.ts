import { expect } from 'vitest';

/** A time as the API writes it: RFC 3339 in UTC with microseconds. */
export const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** A field value's svc_id. */
export const VALUE_ID = /^efo_[0-9a-z]{26}$/;

/** An error body of CONVENTIONS.md, exactly: this code, these details (null unless given), this message (any). */
export function errorBody(
  error_code: string,
  { message = expect.any(String), details = null }: { message?: unknown; details?: unknown } = {},
) {
  return { error_code, message, details, request_id: expect.any(String) };
}

/** The error shape of CONVENTIONS.md, with this code, and the request id in its header too. */
export function expectErrorShape(
  res: { status: number; body: any; headers: Record<string, unknown> },
  code?: string,
): void {
  expect(res.body, JSON.stringify(res.body)).toEqual({
    error_code: code ?? expect.any(String),
    message: expect.any(String),
    details: expect.toSatisfy((d: unknown) => d === null || (typeof d === 'object' && !Array.isArray(d))),
    request_id: expect.any(String),
  });
  expect(res.headers['x-request-id']).toBe(res.body.request_id);
}

/** Checks the double-entry invariant: debits and credits each sum to the record's amount. */
export function expectBalanced(record: any): void {
  const cents = (lines: any[]) => lines.reduce((sum, l) => sum + Math.round(l.amount.amount * 10_000), 0);
  const debits = record.line_items.filter((l: any) => l.type === 'DEBIT');
  const credits = record.line_items.filter((l: any) => l.type === 'CREDIT');
  const total = Math.round(record.amount.amount * 10_000);
  expect(cents(debits)).toBe(total);
  expect(cents(credits)).toBe(total);
  for (const line of record.line_items) {
    expect(line.amount.amount).toBeGreaterThan(0);
    expect(line.amount.currency).toBe(record.amount.currency);
  }
}
