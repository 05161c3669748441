/**
 * The data set an upgrade fixture holds (scripts/make-upgrade-fixture.mjs): what a past release is sent through its
 * public HTTP API, and the reads whose answers the fixture keeps. A change here changes every new fixture: bump
 * SCRIPT_VERSION in make-upgrade-fixture.mjs with it.
 */
import crypto from 'node:crypto';

export function client(base, token) {
  const request = async (method, url, { body, query } = {}) => {
    const u = new URL(url, base);
    for (const [k, v] of Object.entries(query ?? {})) u.searchParams.set(k, v);
    const headers = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID();
    const res = await fetch(u, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  };
  const write = async (method, url, body) => {
    const res = await request(method, url, { body });
    if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return { request, write };
}

const RECORDS = '/v3/accounting/records';
const INGEST = '/internal/v1/accounting/records';
const PEOPLE = {
  user: {
    id: 'cuuser_1',
    email: 'ada@example.invalid',
    first_name: 'Ada',
    last_name: 'Lovelace',
    role: 'EMPLOYEE',
    status: 'ACTIVE',
  },
  vendor: { id: 'v_1', name: 'Vendor H', website: 'https://example.invalid/' },
  receipts: [{ id: 'r_1', download_uris: ['https://example.invalid/r_1.pdf'] }],
};

/** The data set: a chart of two coded fields, records of four types moved through review, coded and exported. */
export async function writeData(api) {
  const gl = await api.write('POST', '/v1/fields', { name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL' });
  const glValues = (
    await api.write('POST', `/v1/fields/${gl.svc_id}/values`, {
      items: [
        { value: '6010 Meals', remote_id: 'GL-6010' },
        { value: '6020 Travel', remote_id: 'GL-6020' },
        { value: '6999 Old', remote_id: 'GL-6999', value_id: 'old-6999' },
      ],
    })
  ).items;
  const dept = await api.write('POST', '/v1/fields', { name: 'Department', group: 'ACCOUNTING' });
  const deptValues = (
    await api.write('POST', `/v1/fields/${dept.svc_id}/values`, { items: [{ value: 'Sales' }, { value: 'Ops' }] })
  ).items;
  await api.write('PUT', `/v1/fields/${gl.svc_id}/values`, {
    items: [{ value_id: 'old-6999', data: { is_disabled: true } }],
  });
  const ingested = (
    await api.write('POST', INGEST, {
      items: [
        {
          type: 'CARD_EXPENSE_POST',
          amount: { amount: 171.75, currency: 'USD' },
          original_amount: { amount: 150, currency: 'EUR' },
          posted_at: '2026-06-11T09:09:05.840865Z',
          memo: 'Team lunch with Ünïcode ✓',
          review_status: 'REVIEW',
          ...PEOPLE,
        },
        {
          type: 'BILL_EXPENSE',
          amount: { amount: 1200, currency: 'USD' },
          posted_at: '2026-06-12T10:00:00.000001Z',
          invoice_number: 'INV-1',
          due_at: '2026-07-12T00:00:00Z',
          vendor: PEOPLE.vendor,
          review_status: 'REVIEW',
          lines: [
            { amount: { amount: 1000, currency: 'USD' }, memo: 'hardware' },
            { amount: { amount: 200, currency: 'USD' }, memo: 'support' },
          ],
        },
        {
          type: 'REIMBURSEMENT_EXPENSE_POST',
          amount: { amount: 42.5, currency: 'USD' },
          posted_at: '2026-06-13T08:30:00Z',
          user: PEOPLE.user,
          review_status: 'READY_FOR_EXPORT',
        },
        {
          type: 'CARD_EXPENSE_REFUND',
          amount: { amount: 19.99, currency: 'USD' },
          posted_at: '2026-06-14T12:00:00Z',
          review_status: 'READY_FOR_EXPORT',
        },
        { type: 'CARD_EXPENSE_POST', amount: { amount: 5, currency: 'GBP' }, posted_at: '2026-06-15T00:00:00Z' },
        {
          type: 'CARD_EXPENSE_POST',
          amount: { amount: 100, currency: 'USD' },
          original_amount: { amount: 90.01, currency: 'EUR' },
          posted_at: '2026-06-16T18:45:00.5Z',
          review_status: 'REVIEW',
        },
      ],
    })
  ).items;
  const [card, bill, reimbursement, refund, , split] = ingested;
  // A line split in three (one part coded by remote ids): lines apportioned, original amount included.
  await api.write('POST', `/internal/v1/accounting/records/${split.id}/lines/${split.line_items[0].id}/split`, {
    version: split.version,
    parts: [
      { amount: { amount: 33.33, currency: 'USD' } },
      {
        amount: { amount: 33.33, currency: 'USD' },
        memo: 'taxi',
        field_values: [{ field_remote_id: 'GL', remote_id: 'GL-6020' }],
      },
      { amount: { amount: 33.34, currency: 'USD' }, field_values: [] },
    ],
  });
  await api.write('POST', `/internal/v1/accounting/records/${card.id}/coding`, {
    version: card.version,
    lines: [
      {
        line_id: card.line_items[0].id,
        field_values: [
          { field_remote_id: 'GL', remote_id: 'GL-6010' },
          { field_id: dept.svc_id, svc_id: deptValues[0].svc_id },
        ],
      },
    ],
  });
  await api.write('POST', `/internal/v1/accounting/records/${bill.id}/coding`, {
    version: bill.version,
    lines: [{ line_id: bill.line_items[0].id, field_values: [{ field_id: gl.svc_id, svc_id: glValues[1].svc_id }] }],
  });
  await api.write('POST', `/internal/v1/accounting/records/${card.id}/review-status`, {
    review_status: 'READY_FOR_EXPORT',
  });
  await api.write('POST', `${RECORDS}/export-results`, {
    results: [
      {
        accounting_record_id: card.id,
        success: { reference_id: 'erp_txn_1', deep_link_url: 'https://erp.example/txn/1' },
      },
      { accounting_record_id: reimbursement.id, success: {} },
      { accounting_record_id: refund.id, failure: { error_message: 'Invalid GL account' } },
    ],
  });
  // Last: a required coding would hold back the moves above.
  await api.write('PUT', '/internal/v1/accounting/required-coding', { field_ids: [gl.svc_id] });
  return { fields: [gl, dept], records: ingested };
}

/** The reads whose answers the fixture keeps: every resource of the data set, as a client would read it. */
export async function readAnswers(api, { fields, records }) {
  const reads = [{ path: '/v1/fields', query: { limit: '100' } }];
  for (const field of fields) {
    reads.push({ path: `/v1/fields/${field.svc_id}` });
    reads.push({ path: `/v1/fields/${field.svc_id}/values`, query: { limit: '100' } });
  }
  reads.push({ path: RECORDS, query: { limit: '100' } });
  reads.push({ path: INGEST, query: { limit: '100' } });
  reads.push({ path: '/internal/v1/accounting/required-coding' });
  for (const record of records) {
    reads.push({ path: `${INGEST}/${record.id}` });
    reads.push({ path: `${RECORDS}/${record.id}` });
    reads.push({ path: `${RECORDS}/${record.id}`, query: { single_entry: 'true' } });
    reads.push({ path: `/internal/v1/accounting/records/${record.id}/history` });
  }
  const answers = [];
  for (const read of reads) {
    const res = await api.request('GET', read.path, { query: read.query });
    // A route this release did not have yet: nothing to compare.
    if (res.status === 404 && res.body?.error_code === 'NOT_FOUND' && /^Route /.test(res.body.message)) continue;
    if (res.status !== 200) throw new Error(`GET ${read.path}: ${res.status} ${JSON.stringify(res.body)}`);
    answers.push({ method: 'GET', path: read.path, query: read.query ?? {}, status: res.status, body: res.body });
  }
  return answers;
}
