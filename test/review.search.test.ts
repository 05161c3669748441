import { expect, it } from 'vitest';
import type { Api, Query } from './support/api.js';
import { ADMIN, EXPORT_RESULTS, PEOPLE, RECORDS, type Item } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';

const SEARCH = '/internal/v1/accounting/records';
const REVIEWER = [...ADMIN, 'accounting.record.review', 'accounting.record.read'] as const;
const codingUrl = (id: string) => `/internal/v1/accounting/records/${id}/coding`;

const money = (amount: number, currency = 'USD') => ({ amount, currency });
const user = (email: string) => ({ ...PEOPLE.user, email });
const vendor = (name: string) => ({ ...PEOPLE.vendor, name });

const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((x) => x.id);

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

/** Each case's query with the status and ids it is answered, to compare every case at once. */
async function answers(api: Api, cases: [Query, string[]][]) {
  const out: [Query, number, unknown][] = [];
  for (const [query] of cases) {
    const res = await api.get(SEARCH, query);
    out.push([query, res.status, res.status === 200 ? ids(res) : res.body]);
  }
  return out;
}
const expectAnswers = async (api: Api, cases: [Query, string[]][]) =>
  expect(await answers(api, cases)).toEqual(cases.map(([query, expected]) => [query, 200, expected]));

/**
 * A queue of seven records, each made to sit on one side of some filter's edge. In updated_at order at the end:
 * r0, r1, r2, r6, r3, r4, r5 (r3 and r4 move when their export is reported, r5 when it is coded).
 */
async function queue(ctx: TestContext) {
  const api = await ctx.as(REVIEWER);
  const gl = await api.newCoding('GL Account', [{ value: '6010 Meals' }]);
  const code = [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }];
  const on = (day: string) => `2026-${day}T00:00:00Z`;
  const by = (name: string, email?: string) => ({ vendor: vendor(name), ...(email ? { user: user(email) } : {}) });
  const [bill, ready] = [{ type: 'BILL_EXPENSE', review_status: 'REVIEW' }, { review_status: 'READY_FOR_EXPORT' }];
  const reimbursement = { ...ready, type: 'REIMBURSEMENT_EXPENSE_POST' };
  const lines = [{ amount: money(0.3), field_values: code }, { amount: money(0.27) }];
  const items: Item[] = [
    { ...by('Acme Coffee', 'ada@example.invalid'), amount: money(1000), posted_at: on('01-10') },
    { ...bill, ...by('ACME Travel', 'bob@corp.example'), amount: money(1000, 'JPY'), posted_at: on('01-20') },
    {
      ...reimbursement,
      ...by('Zeta 100%_Off', 'Ada.L@Example.INVALID'),
      amount: money(999.99),
      posted_at: on('02-01'),
    },
    { ...ready, amount: money(1000.001, 'KWD'), posted_at: '2026-01-31T23:59:59.999999Z' },
    { ...ready, ...by('Beta'), amount: money(1000.01), posted_at: on('01-01') },
    { amount: money(0.07), posted_at: on('01-15') },
    { ...bill, amount: money(0.57), posted_at: on('01-15'), lines },
  ];
  const r = (await api.newRecords(items)).map((record: { id: string }) => record.id);
  const reported = await api.post(EXPORT_RESULTS, {
    results: [
      { accounting_record_id: r[3], failure: { error_message: 'Invalid GL account' } },
      { accounting_record_id: r[4], success: { reference_id: 'erp_1' } },
    ],
  });
  expect(reported.status, reported.text).toBe(200);
  const first = (await api.get(`${RECORDS}/${r[5]}`)).body.line_items[0].id;
  const coded = await api.post(codingUrl(r[5]!), { version: 1, lines: [{ line_id: first, field_values: code }] });
  expect(coded.status, coded.text).toBe(200);
  return { api, r: r as [string, string, string, string, string, string, string], first, code };
}

describeEachDialect('review queue search: filters', (t) => {
  it('answers every matching record as GET /v3/accounting/records/{id} shows it; single_entry drops balancing lines', async () => {
    const { api, r } = await queue(t.ctx);
    const order = [r[0], r[1], r[2], r[6], r[3], r[4], r[5]];
    const shown = (query: Query) =>
      Promise.all(order.map(async (id) => (await api.get(`${RECORDS}/${id}`, query)).body));
    const res = await api.get(SEARCH);
    expect([res.status, res.body]).toEqual([200, { items: await shown({}), has_next_page: false, next_cursor: null }]);
    const single = await api.get(SEARCH, { single_entry: 'true' });
    expect(single.body.items).toEqual(await shown({ single_entry: 'true' }));
    expect(single.body.items[3].line_items.map((l: { type: string }) => l.type)).toEqual(['DEBIT', 'DEBIT']);
    for (const scope of ['read', 'write', 'review', 'admin'] as const) {
      const reader = await t.ctx.as([`accounting.record.${scope}`], api.accountId);
      expect(ids(await reader.get(SEARCH, { source_type: 'BILL' }))).toEqual([r[1], r[6]]);
    }
    const outsider = await t.ctx.as(['fields.read', 'field_values.read'], api.accountId);
    const forbidden = await outsider.get(SEARCH);
    expect([forbidden.status, forbidden.body.error_code]).toEqual([403, 'FORBIDDEN']);
    // Another account sees none of these records, with any filter.
    const stranger = await t.ctx.as(REVIEWER);
    await stranger.newRecord({ vendor: vendor('Acme Coffee') });
    const theirs = await stranger.get(SEARCH, { vendor: 'acme' });
    expect(theirs.body.items.map((x: { vendor: { name: string } }) => x.vendor.name)).toEqual(['Acme Coffee']);
    expect(theirs.body.items[0].id).not.toBe(r[0]);
  });

  it('applies each filter alone and all together, review_status over every source type', async () => {
    const { api, r, first } = await queue(t.ctx);
    const cases: [Query, string[]][] = [
      [{ review_status: 'REVIEW' }, [r[1], r[6], r[3]]],
      [{ review_status: 'PREPARE' }, [r[0], r[5]]],
      [{ review_status: 'EXPORTED' }, [r[4]]],
      [{ source_type: 'BILL' }, [r[1], r[6]]],
      [{ source_type: 'CARD', review_status: 'REVIEW' }, [r[3]]],
      [{ 'posted_at[gte]': '2026-01-15T00:00:00Z', 'posted_at[lt]': '2026-02-01T00:00:00Z' }, [r[1], r[6], r[3], r[5]]],
      // The same instants with an offset.
      [
        { 'posted_at[gte]': '2026-01-15T01:00:00+01:00', 'posted_at[lt]': '2026-01-31T19:00:00-05:00' },
        [r[1], r[6], r[3], r[5]],
      ],
      [{ 'posted_at[lt]': '2026-01-15T00:00:00Z' }, [r[0], r[4]]],
      [{ vendor: 'acme' }, [r[0], r[1]]],
      [{ vendor: 'ACME t' }, [r[1]]],
      // LIKE's wildcards are text like any other.
      [{ vendor: '%' }, [r[2]]],
      [{ vendor: '0%_o' }, [r[2]]],
      [{ vendor: '_' }, [r[2]]],
      [{ user: 'EXAMPLE.invalid' }, [r[0], r[2]]],
      [{ user: 'bob@' }, [r[1]]],
      [{ user: 'nobody' }, []],
      [{ has_export_failure: 'true' }, [r[3]]],
      [{ has_export_failure: 'false' }, [r[0], r[1], r[2], r[6], r[4], r[5]]],
      [{ uncoded: 'true' }, [r[0], r[1], r[2], r[6], r[3], r[4]]],
      [{ uncoded: 'false' }, [r[5]]],
      [
        { vendor: 'acme', 'amount[gte]': '1000', source_type: 'BILL', review_status: 'REVIEW', uncoded: 'true' },
        [r[1]],
      ],
      [{ user: 'ada', has_export_failure: 'false', 'posted_at[gte]': '2026-01-11T00:00:00Z' }, [r[2]]],
    ];
    await expectAnswers(api, cases);
    // Uncoding the coded line puts the record back among the uncoded ones.
    const uncoded = await api.post(codingUrl(r[5]), { version: 2, lines: [{ line_id: first, field_values: [] }] });
    expect(uncoded.status, uncoded.text).toBe(200);
    expect((await api.get(SEARCH, { uncoded: 'false' })).body.items).toEqual([]);
    // A failure is the last report's: reported again as a success, the record has none.
    await api.moveTo(r[3], ['READY_FOR_EXPORT']);
    const success = await api.post(EXPORT_RESULTS, { results: [{ accounting_record_id: r[3], success: {} }] });
    expect(success.status, success.text).toBe(200);
    expect(ids(await api.get(SEARCH, { has_export_failure: 'true' }))).toEqual([]);
    expect(ids(await api.get(SEARCH, { has_export_failure: 'false', review_status: 'EXPORTED' }))).toEqual([
      r[4],
      r[3],
    ]);
  });

  it("compares amounts in each record's own major units, bounds inclusive and exact at every decimal", async () => {
    const { api, r } = await queue(t.ctx);
    const cases: [Query, string[]][] = [
      // JPY 1000 and USD 1000 are equal here; KWD 1000.001 and USD 1000.01 are more.
      [{ 'amount[gte]': '1000', 'amount[lte]': '1000' }, [r[0], r[1]]],
      [{ 'amount[gte]': '1000' }, [r[0], r[1], r[3], r[4]]],
      [{ 'amount[gte]': '1000.001' }, [r[3], r[4]]],
      [{ 'amount[gte]': '1000.0011' }, [r[4]]],
      [{ 'amount[lte]': '1000.001' }, [r[0], r[1], r[2], r[6], r[3], r[5]]],
      [{ 'amount[lte]': '999.99' }, [r[2], r[6], r[5]]],
      [{ 'amount[lte]': '999.98999' }, [r[6], r[5]]],
      // Bounds whose product with 10,000 is not exact in binary floating point.
      [{ 'amount[gte]': '0.07', 'amount[lte]': '0.07' }, [r[5]]],
      [{ 'amount[gte]': '0.57', 'amount[lte]': '0.57' }, [r[6]]],
      [{ 'amount[gte]': '0', 'amount[lte]': '0.06999' }, []],
      // Beyond any amount a record may have.
      [{ 'amount[gte]': '1e15' }, []],
      [{ 'amount[lte]': '1e300' }, [r[0], r[1], r[2], r[6], r[3], r[4], r[5]]],
    ];
    await expectAnswers(api, cases);
    const crossed = await api.get(SEARCH, { 'amount[gte]': '2', 'amount[lte]': '1.99' });
    expect([crossed.status, crossed.body]).toEqual([
      400,
      errorBody('INVALID_REQUEST', {
        details: { errors: [{ path: '/query/amount[lte]', message: 'must not be less than amount[gte]' }] },
      }),
    ]);
  });

  it('matches vendor and user text as typed whatever its letters, ASCII letters in either case', async () => {
    const api = await t.ctx.as(REVIEWER);
    const [ecole, odos] = await api.newRecords([
      { vendor: vendor('ÉCOLE Café'), user: user('Émile@Example.invalid') },
      { vendor: vendor('ΟΔΟΣ Α'), user: user('odos@example.invalid') },
    ]);
    const cases: [Query, string[]][] = [
      [{ vendor: 'ÉCOLE' }, [ecole.id]],
      [{ vendor: 'cole CAFé' }, [ecole.id]],
      [{ vendor: 'ΟΔΟΣ' }, [odos.id]],
      [{ vendor: 'ΟΔΟΣ Α' }, [odos.id]],
      [{ user: 'Émile@EXAMPLE' }, [ecole.id]],
      [{ user: '@example.INVALID' }, [ecole.id, odos.id]],
    ];
    await expectAnswers(api, cases);
  });

  it('refuses malformed filters with every problem', async () => {
    const api = await t.ctx.as(REVIEWER);
    const query = { review_status: 'DONE', 'amount[gte]': '-1', 'posted_at[gte]': '2026-01-15T00:00:00' };
    const res = await api.get(SEARCH, { ...query, uncoded: 'maybe', sort: 'vendor', limit: '501' });
    const errors = [
      ['review_status', 'must be one of: PREPARE, REVIEW, READY_FOR_EXPORT, EXPORTED'],
      ['amount[gte]', 'must be >= 0'],
      ['posted_at[gte]', 'must be an RFC 3339 date-time with a time zone'],
      ['uncoded', 'must be boolean'],
      ['sort', 'must be one of: updated_at, -updated_at, posted_at, -posted_at, amount, -amount'],
      ['limit', 'must be <= 500'],
    ].map(([name, message]) => ({ path: `/query/${name}`, message }));
    expect([res.status, res.body]).toEqual([400, errorBody('INVALID_REQUEST', { details: { errors } })]);
  });
});

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
