import { expect } from 'vitest';
import { RECORDS } from './accounting.js';
import { Api } from './api.js';
import type { TestContext } from './context.js';

/** The sandbox's settings (SANDBOX=true and the operator's token) and its routes, for the sandbox test files. */
export const ADMIN_TOKEN = 'sandbox-operator-token-0123456789';
export const SANDBOX = { SANDBOX: 'true', SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN };
export const ACCOUNTS = '/sandbox/v1/accounts';
export const faultsUrl = (clientId: string) => `/sandbox/v1/clients/${clientId}/faults`;

/** An Api with the operator's token. */
export const operator = (ctx: TestContext) => new Api(ctx.app, ADMIN_TOKEN, '', '');

/** An Api with the token of the sandbox account's client. */
export async function clientOf(
  ctx: TestContext,
  creds: { client_id: string; client_secret: string; account_id: string },
) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    payload: { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret },
  });
  expect(res.statusCode, res.body).toBe(200);
  return new Api(ctx.app, JSON.parse(res.body).access_token, creds.account_id, creds.client_id);
}

/** A new sandbox account (of a scenario, with `body`): the operator's answer and an Api of its client. */
export async function newAccount(ctx: TestContext, body: object = {}) {
  const res = await operator(ctx).post(ACCOUNTS, body);
  expect(res.status, res.text).toBe(200);
  return { creds: res.body, api: await clientOf(ctx, res.body) };
}

/** Every record of the account, in the API's order. */
export async function allRecords(api: Api): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; text: string; body: any } = await api.get(RECORDS, {
      limit: '500',
      ...(cursor ? { cursor } : {}),
    });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.items);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

/** How many items fall under each key. */
export const tally = (items: any[], key: (r: any) => string) => {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
};
