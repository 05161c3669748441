import { expect, it } from 'vitest';
import type { Api, Query } from './support/api.js';
import { EXPORT_RESULTS, PEOPLE, RECORDS, type Item } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';
import { codingUrl, ids, money, REVIEWER, SEARCH } from './support/review.js';

const user = (email: string) => ({ ...PEOPLE.user, email });
const vendor = (name: string) => ({ ...PEOPLE.vendor, name });

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
      ['review_status', 'must be one of: PREPARE, REVIEW, READY_FOR_EXPORT, EXPORTED (got "DONE")'],
      ['amount[gte]', expect.any(String)],
      ['posted_at[gte]', 'must be an RFC 3339 date-time with a time zone'],
      ['uncoded', expect.any(String)],
      ['sort', 'must be one of: updated_at, -updated_at, posted_at, -posted_at, amount, -amount (got "vendor")'],
      ['limit', expect.any(String)],
    ].map(([name, message]) => ({ path: `/query/${name}`, message }));
    expect([res.status, res.body]).toEqual([400, errorBody('INVALID_REQUEST', { details: { errors } })]);
  });
});
