import os from 'node:os';
import { token } from '../lib/api.js';
import { makeChart, openDb } from '../lib/coding-data.js';
import { ALL_SCOPES, type Bench } from '../lib/context.js';
import type { Caller } from '../../src/modules/auth/auth.service.js';

/** What the coding scenarios share (coding.ts, coding-suggestions.ts). */

export const loadNow = () => os.loadavg()[0]!.toFixed(1);
export const callerOf = (accountId: string): Caller => ({ accountId, actor: { type: 'system', id: 'bench' } });

/**
 * A client of an account of the bench's and its headers (a new client; `bench`, the account of the bench's own
 * client, is the one the capture server's requests are made as), with the company's fields when asked.
 */
export async function account(b: Bench, accountId: string, chart: boolean) {
  let bearer: string;
  if (accountId === 'bench') bearer = (await b.client()).bearer;
  else {
    const creds = JSON.parse(b.svc(['clients', 'create', '--account', accountId, '--scopes', ALL_SCOPES])) as {
      client_id: string;
      client_secret: string;
    };
    bearer = await token(b.server.url, creds.client_id, creds.client_secret);
  }
  const db = openDb(b.dbUrl);
  try {
    const made = chart ? await makeChart(db, callerOf(accountId)) : null;
    return {
      accountId,
      bearer,
      auth: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      chart: made,
    };
  } finally {
    await db.close();
  }
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
export const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
export const round1 = (x: number) => Math.round(x * 10) / 10;
