import { expect, it } from 'vitest';
import { ADMIN, RECORDS, reviewUrl } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { connected, disconnectUrl, INTEGRATIONS, newVendor } from './support/integrations.js';
import { SEARCH, historyUrl } from './support/review.js';
import { EVENTS, subscribe, WEBHOOKS } from './support/webhooks.js';

/**
 * Issue 36, 9: svc's own lists page one way, the spec's records query's (docs/design.md, "Pagination"): `{items,
 * has_next_page, next_cursor}`, next_cursor null at the end (the event feed's never is: it has no end). The event
 * feed's earlier `has_more` is answered beside it, deprecated. The spec's lists keep the spec's members.
 */
const OWN = ['items', 'has_next_page', 'next_cursor'];
const LISTS: Record<string, string[]> = {
  // The spec's and the reference's, as they write them.
  '/v1/fields': ['items', 'next_cursor'],
  '/v1/fields/{field_id}/values': ['items', 'next_cursor'],
  '/v3/accounting/records': ['items', 'has_next_page', 'next_cursor', 'total_count'],
  // svc's own.
  '/v1/webhooks': OWN,
  '/v1/webhooks/{webhook_id}/attempts': OWN,
  '/v1/events': [...OWN, 'has_more'],
  '/internal/v1/accounting/records': OWN,
  '/internal/v1/accounting/records/{record_id}/history': OWN,
  '/internal/v1/integrations': OWN,
  '/internal/v1/audit-events': OWN,
  '/internal/v1/accounting/coding-rules': OWN,
  '/internal/v1/accounting/coding-rules/{rule_id}/versions': OWN,
};

type Schema = { $ref?: string; properties?: Record<string, Schema>; required?: string[]; [k: string]: unknown };

/** Walks a list a page of one at a time to its end: each page's members, and how many items it held. */
async function walk(api: Api, url: string, query: Record<string, string | string[]> = {}) {
  const pages: { keys: string[]; count: number; more: boolean; next: unknown }[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await api.get(url, { ...query, limit: '1', ...(cursor ? { cursor } : {}) });
    expect(res.status, res.text).toBe(200);
    pages.push({
      keys: Object.keys(res.body),
      count: res.body.items.length,
      more: res.body.has_next_page,
      next: res.body.next_cursor,
    });
    if (!res.body.has_next_page) return pages;
    cursor = res.body.next_cursor;
    if (pages.length > 50) throw new Error(`${url} never ended`);
  }
}

/** n pages of one item, then the end: has_next_page true with a cursor on each but the last, which has none. */
function expectPagesOfOne(pages: Awaited<ReturnType<typeof walk>>, n: number, keys = OWN) {
  expect(pages.map((p) => [p.keys, p.count, p.more, p.next === null ? null : typeof p.next])).toEqual(
    Array.from({ length: n }, (_, i) => [keys, 1, i < n - 1, i < n - 1 ? 'string' : null]),
  );
}

describeEachDialect('pagination: one convention for the lists of svc’s own', (t) => {
  it("the OpenAPI document: every list of svc's own has has_next_page and next_cursor; the spec's keep theirs", async () => {
    const doc = (await t.ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const resolve = (s: Schema): Schema =>
      s.$ref ? resolve(doc.components.schemas[s.$ref.replace('#/components/schemas/', '')]) : s;
    const found: Record<string, string[]> = {};
    const pageSchemas: Record<string, Schema> = {};
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      const params: { in: string; name: string }[] = operations.get?.parameters ?? [];
      if (!params.some((p) => p.in === 'query' && p.name === 'cursor')) continue;
      const schema = resolve(operations.get.responses['200'].content['application/json'].schema);
      found[path] = Object.keys(schema.properties ?? {});
      pageSchemas[path] = schema;
    }
    // Every paged list is here: a new one must take the convention (or be the spec's).
    expect(found).toEqual(LISTS);
    for (const [path, members] of Object.entries(LISTS)) {
      if (members !== OWN && path !== '/v1/events') continue;
      const schema = pageSchemas[path]!;
      expect(schema.required, path).toEqual(expect.arrayContaining(OWN));
      expect(schema.properties!.has_next_page, path).toMatchObject({ type: 'boolean' });
    }
    expect(pageSchemas['/v1/events']!.properties!.has_more).toMatchObject({ type: 'boolean', deprecated: true });
  });

  it('every list of svc’s own pages by has_next_page and next_cursor, null at the end', async () => {
    const api = await t.ctx.as([
      ...ADMIN,
      'accounting.record.review',
      'accounting.record.read',
      'accounting.integration.write',
      'webhooks.write',
      'events.read',
      'audit.read',
    ]);
    await subscribe(api, 'https://a.example.com/');
    await subscribe(api, 'https://b.example.com/');
    expectPagesOfOne(await walk(api, WEBHOOKS), 2);
    expectPagesOfOne(await walk(api, '/internal/v1/audit-events', { 'action[]': 'webhook_endpoint.created' }), 2);

    const vendor = await newVendor(t.ctx.db);
    const one = await connected(api, vendor, 'one');
    expect((await api.post(disconnectUrl(one.integration_id), undefined)).status).toBe(200);
    await connected(api, vendor, 'two');
    expectPagesOfOne(await walk(api, INTEGRATIONS), 2);

    const record = await api.newRecord({ review_status: 'REVIEW' });
    await api.newRecord({ review_status: 'REVIEW' });
    const moved = await api.post(reviewUrl(record.id), { review_status: 'PREPARE', version: 1 });
    expect(moved.status, moved.text).toBe(200);
    expectPagesOfOne(await walk(api, historyUrl(record.id)), 2);
    expectPagesOfOne(await walk(api, SEARCH), 2);
    // The spec's query, as it was: the same two members, with total_count.
    expectPagesOfOne(await walk(api, RECORDS), 2, [...OWN, 'total_count']);
  });

  it('the event feed: has_next_page, a cursor on every page, and has_more (deprecated) equal to has_next_page', async () => {
    const api = await t.ctx.as([...ADMIN, 'events.read']);
    await api.readyRecord();
    await api.readyRecord();
    const pages = await walk(api, EVENTS, { type: 'accounting_record.ready_for_export' });
    expect(pages.map((p) => [p.keys, p.count, p.more, typeof p.next])).toEqual([
      [[...OWN, 'has_more'], 1, true, 'string'],
      [[...OWN, 'has_more'], 1, false, 'string'],
    ]);
    const first = await api.get(EVENTS, { limit: '1' });
    const last = await api.get(EVENTS, { limit: '1000' });
    expect([first.body.has_more, last.body.has_more]).toEqual([true, false]);
    expect([first.body.has_next_page, last.body.has_next_page]).toEqual([true, false]);
  });
});
