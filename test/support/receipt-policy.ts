import { expect } from 'vitest';
import type { ApiClient } from './api.js';

/** The receipt policy's route (svc's own, beside the review settings). */
export const POLICY = '/internal/v1/accounting/receipt-policy';

/** Sets the account's receipt policy (accounting.record.admin); answers it. */
export async function setPolicy(api: ApiClient, rules: Record<string, unknown>[]): Promise<any> {
  const res = await api.put(POLICY, { rules });
  expect(res.status, res.text).toBe(200);
  return res.body;
}
