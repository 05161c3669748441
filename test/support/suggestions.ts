import { expect } from 'vitest';
import type { Api } from './api.js';

/** The coding suggestions routes (svc's own, under /internal/v1/accounting). */
export const BATCH = '/internal/v1/accounting/suggestions';
export const suggestionsUrl = (id: string) => `/internal/v1/accounting/records/${id}/suggestions`;
export const acceptUrl = (id: string) => `/internal/v1/accounting/records/${id}/suggestions/accept`;

/** A value reference of a chart made by ruleChart (test/support/coding-rules.ts). */
type Set = (coding: { field: any; values: any[] }, i: number) => { field_id: string; svc_id: string };

/** The n-th day of June 2026 at noon, as posted_at: history records are posted in the order they are listed. */
export const day = (n: number) => `2026-06-${String(n).padStart(2, '0')}T12:00:00.000000Z`;

/**
 * Approved history (READY_FOR_EXPORT), one record per entry: its vendor (or none), its coding as value references,
 * posted on consecutive days from `firstDay` in the order given, so that the last entry is the newest; `extra` adds
 * to (or overrides) the record's members, its one line taking its amount.
 */
export async function history(
  api: Api,
  entries: { vendor?: string | null; codes: { field_id: string; svc_id: string }[]; extra?: Record<string, unknown> }[],
  firstDay = 1,
): Promise<any[]> {
  return api.newRecords(
    entries.map((e, i) => ({
      review_status: 'READY_FOR_EXPORT',
      posted_at: day(firstDay + i),
      ...(e.vendor ? { vendor: { id: `v_${e.vendor}`, name: e.vendor } } : {}),
      ...e.extra,
      lines: [{ amount: e.extra?.amount ?? { amount: 171.75, currency: 'USD' }, field_values: e.codes }],
    })),
  );
}

/** The suggestions of one record, as answered (200 expected). */
export async function suggestionsOf(api: Api, id: string): Promise<any> {
  const res = await api.get(suggestionsUrl(id));
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** A suggestion as answered, for `line` of a value of a ruleChart chart. */
export function suggestion(
  line: string,
  chart: { field: any; values: any[] },
  i: number,
  rest: { confidence: number; signal: string; reason: string; matching_records: number; coded_records: number },
) {
  return {
    line_id: line,
    field_id: chart.field.svc_id,
    field_name: chart.field.name,
    svc_id: chart.values[i].svc_id,
    value: chart.values[i].value,
    ...rest,
  };
}

export type { Set };
