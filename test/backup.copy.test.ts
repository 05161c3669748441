import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/open.js';
import { authService } from '../src/modules/auth/auth.service.js';
import { ALL_SCOPES } from '../src/modules/auth/scopes.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { DIALECTS } from './support/dialects.js';
import { startServer, svc, type RunningServer } from './support/processes.js';
import { receiptsUrl, samples } from './support/receipts.js';
import { fetchToken, HttpApi } from './support/reliability.js';

/** Every page of a listing, each page's text as the API wrote it. */
async function pages(api: HttpApi, path: string, query: Record<string, string> = {}): Promise<string[]> {
  const texts: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await api.get(path, { ...query, ...(cursor ? { cursor } : {}) });
    expect([path, res.status]).toEqual([path, 200]);
    // A receipt's signed link names its server and an expiry: the same receipt, whichever server answers.
    texts.push(res.text.replace(/http:\/\/127\.0\.0\.1:\d+\/internal\/v1\/receipts\/([^"?]+)\?[^"]*/g, 'receipt:$1'));
    cursor = res.body.next_cursor ?? undefined;
  } while (cursor);
  return texts;
}

/** What the API answers for every resource of the account, by request. */
async function answers(api: HttpApi): Promise<Map<string, string[]>> {
  const all = new Map<string, string[]>();
  const fields = await pages(api, '/v1/fields');
  all.set('/v1/fields', fields);
  for (const page of fields)
    for (const field of JSON.parse(page).items as { svc_id: string }[]) {
      const path = `/v1/fields/${field.svc_id}/values`;
      all.set(path, await pages(api, path, { limit: '1000' }));
    }
  const records = await pages(api, '/v3/accounting/records', { limit: '500' });
  all.set('/v3/accounting/records', records);
  for (const page of records)
    for (const record of JSON.parse(page).items as { id: string }[]) {
      for (const path of [
        `/v3/accounting/records/${record.id}`,
        `/internal/v1/accounting/records/${record.id}`,
        `/internal/v1/accounting/records/${record.id}/history`,
      ])
        all.set(path, await pages(api, path));
    }
  for (const path of [
    '/internal/v1/accounting/coding-rules',
    '/internal/v1/accounting/review-settings',
    '/internal/v1/accounting/required-coding',
    '/internal/v1/audit-events',
  ])
    all.set(path, await pages(api, path));
  return all;
}

describe('svc copy', () => {
  it.skipIf(!DIALECTS.includes('postgres'))(
    'SQLite → PostgreSQL → SQLite gives identical API answers for every resource of a seeded account',
    async () => {
      const databases: TestDatabase[] = [];
      const servers: RunningServer[] = [];
      try {
        const [first, middle, last] = await Promise.all(
          (['sqlite', 'postgres', 'sqlite'] as const).map((d) => createTestDatabase(d)),
        );
        databases.push(first!, middle!, last!);
        const account = `copy_${Date.now().toString(36)}`;
        const seeded = await svc(['seed', '--account', account, '--records', '60', '--values', '30'], {
          DATABASE_URL: first!.url,
        });
        expect(seeded.code).toBe(0);
        const db = openDatabase(loadConfig({ DATABASE_URL: first!.url }).database, { poolSize: 1 });
        const creds = await authService.createClient(db, account, [...ALL_SCOPES]);
        await db.close();
        // A receipt stored by svc: a file beside the SQLite database, bytes in a table on PostgreSQL, and back.
        const png = (await samples()).png.bytes;
        const before = await startServer({ DATABASE_URL: first!.url, RATE_LIMIT_MAX: '0' });
        const writer = new HttpApi(before.url, await fetchToken(before.url, creds), account, creds.client_id);
        const firstRecord = (await writer.get('/v3/accounting/records', { limit: '1' })).body.items[0].id;
        const uploaded = await writer.request('POST', receiptsUrl(firstRecord), {
          raw: png,
          headers: { 'content-type': 'image/png' },
        });
        expect(uploaded.status).toBe(200);
        before.child.kill('SIGTERM');
        await before.exited;

        const there = await svc(['copy', '--from', first!.url, '--to', middle!.url], {});
        expect([there.code, there.stderr]).toEqual([0, expect.stringContaining('svc: copying sqlite:')]);
        const report = JSON.parse(there.stdout);
        expect(report.migrations_run).toEqual([]);
        expect(report.tables.accounting_records).toBe(60);
        const back = await svc(['copy', '--from', middle!.url, '--to', last!.url], {});
        expect(back.code).toBe(0);
        expect(JSON.parse(back.stdout).tables).toEqual(report.tables);

        // Into a database that is not empty: refused, nothing written.
        const refused = await svc(['copy', '--from', first!.url, '--to', middle!.url], {});
        expect([refused.code, refused.stdout]).toEqual([1, '']);
        expect(refused.stderr).toContain('a copy writes only into an empty database');

        const apis: HttpApi[] = [];
        for (const database of [first!, middle!, last!]) {
          const server = await startServer({ DATABASE_URL: database.url, RATE_LIMIT_MAX: '0' });
          servers.push(server);
          apis.push(new HttpApi(server.url, await fetchToken(server.url, creds), account, creds.client_id));
        }
        const [a, p, b] = await Promise.all(apis.map((api) => answers(api)));
        expect(a!.size).toBeGreaterThan(60);
        expect(p).toEqual(a);
        expect(b).toEqual(a);
        expect(report.receipts).toBe(1);
        // Each server serves the receipt's bytes through its own signed link.
        for (const api of apis) {
          const answered = await api.get(`/v3/accounting/records/${firstRecord}`);
          const link = new URL(answered.body.receipts[0].download_uris[0]);
          const download = await fetch(new URL(`${link.pathname}${link.search}`, api.base));
          expect(download.status).toBe(200);
          expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true);
        }
      } finally {
        for (const server of servers) server.child.kill('SIGTERM');
        await Promise.all(servers.map((s) => s.exited));
        await Promise.all(databases.map((d) => d.drop()));
      }
    },
    180_000,
  );
});
