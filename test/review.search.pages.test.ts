import { expect, it } from 'vitest';
import type { Api, Query } from './support/api.js';
import { RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { ids, money, REVIEWER, SEARCH } from './support/review.js';

/** Every record of the search, page after page of `limit`, checking each page's shape: the ids in order. */
async function allPages(api: Api, query: Query, limit: number): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await api.get(SEARCH, { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(res.status, res.text).toBe(200);
    const { items, has_next_page, next_cursor } = res.body;
    expect(items.length).toBeLessThanOrEqual(limit);
    expect(has_next_page).toBe(next_cursor !== null);
    found.push(...ids(res));
    if (!has_next_page) return found;
    expect(items).toHaveLength(limit);
    cursor = next_cursor;
  }
  throw new Error('more than 100 pages');
}

describeEachDialect('review queue search: sorting and keyset pages', (t) => {
  /** Nine records whose amounts (in four currencies) and posting times tie in groups; answered as GET shows them. */
  async function ties(api: Api) {
    const day = (d: number) => `2026-03-0${d}T08:00:00Z`;
    // amount, currency, day of posting
    const spec = '5 USD 1, 5 JPY 2, 2.5 USD 1, 7 KWD 2, 5 EUR 1, 2.5 EUR 3, 7 USD 2, 3 JPY 1, 5 USD 2';
    const created = await api.newRecords(
      spec
        .split(', ')
        .map((s) => s.split(' '))
        .map(([a, c, d]) => ({ amount: money(Number(a), c), posted_at: day(Number(d)) })),
    );
    // Moving some records reorders updated_at against creation (and so against id).
    await api.moveTo(created[0].id, ['REVIEW']);
    await api.moveTo(created[4].id, ['REVIEW']);
    return Promise.all(created.map(async (r: { id: string }) => (await api.get(`${RECORDS}/${r.id}`)).body));
  }
  type Shown = { id: string; updated_at: string; posted_at: string; amount: { amount: number }; source_type: string };
  const keys: Record<string, (r: Shown) => string | number> = {
    updated_at: (r) => r.updated_at,
    posted_at: (r) => r.posted_at,
    amount: (r) => r.amount.amount,
  };
  /** The order the API promises: by the sort's value, ties by id; descending is the exact reverse. */
  function ordered(records: Shown[], sort: string): string[] {
    const key = keys[sort.replace('-', '')]!;
    const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
    const asc = [...records].sort((a, b) => cmp(key(a), key(b)) || cmp(a.id, b.id)).map((r) => r.id);
    return sort.startsWith('-') ? asc.reverse() : asc;
  }

  it('answers every record once, in order, across pages of every size, for every sort even when values tie', async () => {
    const api = await t.ctx.as(REVIEWER);
    const records: Shown[] = await ties(api);
    expect(ids(await api.get(SEARCH))).toEqual(ordered(records, 'updated_at'));
    for (const sort of ['updated_at', '-updated_at', 'posted_at', '-posted_at', 'amount', '-amount']) {
      const expected = ordered(records, sort);
      for (const limit of [1, 2, 4, 9, 100]) {
        expect(await allPages(api, { sort }, limit), `${sort} by ${limit}`).toEqual(expected);
      }
    }
    // With filters: amounts 2.5 to 5 in any currency, posted on the 1st or 2nd.
    const within = records.filter((r) => r.amount.amount >= 2.5 && r.amount.amount <= 5 && r.posted_at < '2026-03-03');
    const query = { 'amount[gte]': '2.5', 'amount[lte]': '5', 'posted_at[lt]': '2026-03-03T00:00:00Z' };
    expect(within).toHaveLength(6);
    for (const sort of ['-amount', 'posted_at']) {
      expect(await allPages(api, { ...query, sort }, 2)).toEqual(ordered(within, sort));
    }
  });

  it('refuses a cursor with other filters or sort, tampered, or of another account; limit and single_entry may change', async () => {
    const api = await t.ctx.as(REVIEWER);
    const records: Shown[] = await ties(api);
    const query = { sort: 'amount', 'amount[gte]': '3' };
    const first = await api.get(SEARCH, { ...query, limit: '2' });
    expect(first.body).toMatchObject({ has_next_page: true, next_cursor: expect.any(String) });
    const cursor: string = first.body.next_cursor;
    const invalid = [400, errorBody('INVALID_CURSOR')];
    const refused: Query[] = [
      { ...query, sort: '-amount', cursor },
      { ...query, sort: 'posted_at', cursor },
      { sort: 'amount', cursor },
      { ...query, 'amount[gte]': '3.0001', cursor },
      { ...query, vendor: 'x', cursor },
      { ...query, cursor: `${cursor.slice(0, 20)}${cursor[20] === 'A' ? 'B' : 'A'}${cursor.slice(21)}` },
      { ...query, cursor: cursor.slice(0, -1) },
      { ...query, cursor: 'not-a-cursor' },
    ];
    for (const refusedQuery of refused) {
      const res = await api.get(SEARCH, refusedQuery);
      expect([res.status, res.body], JSON.stringify(refusedQuery)).toEqual(invalid);
    }
    const stranger = await t.ctx.as(REVIEWER);
    await ties(stranger);
    const foreign = await stranger.get(SEARCH, { ...query, cursor });
    expect([foreign.status, foreign.body]).toEqual(invalid);

    const expected = ordered(
      records.filter((r) => r.amount.amount >= 3),
      'amount',
    );
    const rest = await api.get(SEARCH, { ...query, cursor, limit: '100', single_entry: 'true' });
    expect(rest.status, rest.text).toBe(200);
    expect(ids(rest)).toEqual(expected.slice(2));
    expect(rest.body.items.every((r: { line_items: unknown[] }) => r.line_items.length === 1)).toBe(true);
    expect(ids(first)).toEqual(expected.slice(0, 2));
  });
});
