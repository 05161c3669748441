export const RECORDS = '/v3/accounting/records';
export const INGEST = '/internal/v1/accounting/records';
export const EXPORT_RESULTS = '/v3/accounting/records/export-results';
export const reviewUrl = (id: string) => `/internal/v1/accounting/records/${id}/review-status`;

/** Scopes of a caller that can do everything the accounting tests need (and every factory of an Api). */
export const ADMIN = [
  'accounting.record.admin',
  'accounting.record.write',
  'fields.write',
  'field_values.write',
] as const;

export type Item = Record<string, unknown>;

/** An ingestion item: a 171.75 USD card expense unless overridden. */
export function item(overrides: Item = {}): Item {
  return {
    type: 'CARD_EXPENSE_POST',
    amount: { amount: 171.75, currency: 'USD' },
    posted_at: '2026-06-11T09:09:05.840865Z',
    ...overrides,
  };
}

/** The people and papers of a record (its user, vendor and receipts), as sent and as answered. */
export const PEOPLE = {
  user: {
    id: 'cuuser_1',
    email: 'a@example.invalid',
    first_name: 'Ada',
    last_name: 'L',
    role: 'EMPLOYEE',
    status: 'ACTIVE',
  },
  vendor: { id: 'v_1', name: 'Vendor H', website: 'https://example.invalid/' },
  receipts: [{ id: 'r_1', download_uris: ['https://example.invalid/r_1.pdf'] }],
} as const;
