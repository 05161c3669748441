import { createHash, randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { INGEST, item, RECORDS } from './support/accounting.js';
import type { ApiClient } from './support/api.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';
import { setPolicy } from './support/receipt-policy.js';
import { follow, multipartBody, newJpeg, PDF, RECEIPT_WRITER, storedReceipts, uploadRaw } from './support/receipts.js';
import { storedRecords } from './support/stored.js';

const UPLOAD = '/internal/v1/receipts';
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Uploads `bytes` tied to no record (raw body), with a fresh Idempotency-Key unless one is given. */
function upload(api: ApiClient, bytes: Buffer, key: string = randomUUID(), contentType = 'application/octet-stream') {
  return api.request('POST', UPLOAD, { body: bytes, headers: { 'content-type': contentType, 'idempotency-key': key } });
}

async function uploaded(api: ApiClient, bytes?: Buffer): Promise<any> {
  const res = await upload(api, bytes ?? (await newJpeg()));
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** What a refused ingestion must leave as it was: the records, their receipts and history, and the event feed. */
async function everything(ctx: TestContext, api: ApiClient) {
  const records = await storedRecords(ctx, api.accountId);
  const events = await ctx.db.direct
    .selectFrom('accounting_record_events')
    .selectAll()
    .where('account_id', '=', api.accountId)
    .execute();
  return { records, events: events.length };
}

describeEachDialect('receipts: uploaded alone, named at ingestion', (t) => {
  it('uploads a receipt tied to no record (raw or multipart), answered by its id and kept as it is', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const bytes = await newJpeg();
    const raw = await upload(api, bytes, randomUUID(), 'image/png');
    expect(raw.status, raw.text).toBe(200);
    expect(raw.body).toEqual({
      id: expect.stringMatching(/^rcpt_/),
      content_type: 'image/jpeg',
      size_bytes: bytes.length,
      sha256: sha(bytes),
      created_at: expect.any(String),
      download_uri: expect.stringContaining(`/internal/v1/receipts/${raw.body.id}/content?`),
      thumbnail_uri: expect.stringContaining('/thumbnail?'),
    });
    const { body, contentType } = multipartBody(PDF, 'r.pdf', 'application/pdf');
    const form = await upload(api, body, randomUUID(), contentType);
    expect([form.status, form.body.content_type, form.body.thumbnail_uri]).toEqual([200, 'application/pdf', null]);
    expect((await api.get(`${UPLOAD}/${raw.body.id}`)).body.sha256).toBe(sha(bytes));
    expect((await storedReceipts(t.ctx, api.accountId)).map((r) => r.id).sort()).toEqual(
      [raw.body.id, form.body.id].sort(),
    );
    // Attached to nothing: no record, no event.
    expect(await everything(t.ctx, api)).toEqual({ records: [], events: 0 });
    // The same refusals as an upload to a record.
    const html = await upload(api, Buffer.from('<html><script>alert(1)</script></html>'));
    expect([html.status, html.body.error_code]).toEqual([415, 'UNSUPPORTED_RECEIPT_TYPE']);
    const empty = await upload(api, Buffer.alloc(0));
    expect([empty.status, empty.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
    const reader = await t.ctx.as(['accounting.record.read']);
    const forbidden = await upload(reader, bytes);
    expect([forbidden.status, forbidden.body.error_code]).toEqual([403, 'FORBIDDEN']);
    expect((await storedReceipts(t.ctx, api.accountId)).length).toBe(2);
  });

  it('honours Idempotency-Key: the same file is replayed, another file under the key refused', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const key = randomUUID();
    const bytes = await newJpeg();
    const first = await upload(api, bytes, key);
    const again = await upload(api, bytes, key);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(first.body);
    const other = await upload(api, await newJpeg(), key);
    expect([other.status, other.body.error_code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect((await storedReceipts(t.ctx, api.accountId)).map((r) => r.id)).toEqual([first.body.id]);
  });

  it('attaches each named receipt to its record, as an upload to the record does; the link downloads it', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const bytes = await newJpeg();
    const [a, b] = [await uploaded(api, bytes), await uploaded(api)];
    const res = await api.create(INGEST, {
      items: [item({ receipt_ids: [a.id, b.id] }), item({ memo: 'none' })],
    });
    expect(res.status, res.text).toBe(200);
    const [record, plain] = res.body.items;
    expect(record.version).toBe(3);
    expect(record.receipts.map((r: any) => r.id)).toEqual([a.id, b.id]);
    expect(plain.receipts).toBeNull();
    const got = await follow(t.ctx.app, record.receipts[0].download_uris[0]);
    expect([got.status, sha(got.raw)]).toEqual([200, sha(bytes)]);
    // Read again, the same.
    const read = await api.get(`${RECORDS}/${record.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.receipts.map((r: any) => r.id)).toEqual([a.id, b.id]);
    const history = await api.get(`${INGEST}/${record.id}/history`);
    expect(history.body.items.map((e: any) => [e.type, e.version, e.changes])).toEqual([
      ['INGESTED', 1, { review_status: 'PREPARE' }],
      ['RECEIPT_ATTACHED', 2, { receipt_id: a.id }],
      ['RECEIPT_ATTACHED', 3, { receipt_id: b.id }],
    ]);
    const feed = await api.get('/v1/events', { type: ['accounting_record.receipt_attached'] });
    expect(feed.body.items.map((e: any) => e.data.receipt_id)).toEqual([a.id, b.id]);
  });

  it("refuses the whole batch for an unknown, another account's, an attached or a twice-named id; nothing written", async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const other = await t.ctx.as(RECEIPT_WRITER);
    const theirs = await uploaded(other);
    const onRecord = await uploadRaw(api, (await api.newRecord()).id, await newJpeg(), 'image/jpeg');
    expect(onRecord.status, onRecord.text).toBe(200);
    const attached = onRecord.body.receipt.id;
    const free = await uploaded(api);
    const before = await everything(t.ctx, api);
    const res = await api.create(INGEST, {
      items: [
        item({ receipt_ids: [free.id] }),
        item({ receipt_ids: ['rcpt_nosuch', theirs.id] }),
        item({ receipt_ids: [attached, free.id] }),
      ],
    });
    expect(res.status, res.text).toBe(400);
    const upFirst = '(upload it first: POST /internal/v1/receipts)';
    expect(res.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            {
              path: '/items/1/receipt_ids/0',
              message: `names receipt rcpt_nosuch, which the account does not store ${upFirst}`,
            },
            {
              path: '/items/1/receipt_ids/1',
              message: `names receipt ${theirs.id}, which the account does not store ${upFirst}`,
            },
            {
              path: '/items/2/receipt_ids/0',
              message: `names receipt ${attached}, attached to record ${onRecord.body.record.id} already: a receipt belongs to one record`,
            },
            {
              path: '/items/2/receipt_ids/1',
              message: `names receipt ${free.id}, named at /items/0/receipt_ids/0 already: a receipt belongs to one record`,
            },
          ],
        },
      }),
    );
    expect(await everything(t.ctx, api)).toEqual(before);

    // Named once and attached, it is refused at the next ingestion that names it.
    expect((await api.create(INGEST, { items: [item({ receipt_ids: [free.id] })] })).status).toBe(200);
    const again = await api.create(INGEST, { items: [item({ receipt_ids: [free.id] })] });
    expect(again.status).toBe(400);
    expect(again.body.details.errors[0].path).toBe('/items/0/receipt_ids/0');
  });

  it('refuses more receipts than RECEIPTS_PER_RECORD (10), those sent with their own links counted too', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const receipt = await uploaded(api);
    const sent = Array.from({ length: 10 }, (_, i) => ({
      id: `src_${i}`,
      download_uris: [`https://src.example/${i}`],
    }));
    const res = await api.create(INGEST, { items: [item({ receipts: sent, receipt_ids: [receipt.id] })] });
    expect(res.status, res.text).toBe(400);
    expect(res.body.details.errors).toEqual([
      {
        path: '/items/0/receipt_ids',
        message: 'gives the record 11 receipts with its receipts: at most 10 a record (RECEIPTS_PER_RECORD)',
      },
    ]);
    expect(await everything(t.ctx, api)).toEqual({ records: [], events: 0 });
    const fits = await api.create(INGEST, { items: [item({ receipts: sent.slice(1), receipt_ids: [receipt.id] })] });
    expect(fits.status, fits.text).toBe(200);
    expect(fits.body.items[0].receipts.map((r: any) => r.id).at(-1)).toBe(receipt.id);
  });

  it('replays an ingestion under its Idempotency-Key without attaching twice', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const receipt = await uploaded(api);
    const key = randomUUID();
    const body = { items: [item({ receipt_ids: [receipt.id] })] };
    const first = await api.post(INGEST, body, { 'idempotency-key': key });
    const replay = await api.post(INGEST, body, { 'idempotency-key': key });
    expect([first.status, replay.status]).toEqual([200, 200]);
    expect(replay.body.items[0].id).toBe(first.body.items[0].id);
    expect(replay.body.items[0].receipts.map((r: any) => r.id)).toEqual([receipt.id]);
    const stored = await storedRecords(t.ctx, api.accountId);
    expect(stored.map((r) => [r.id, Number(r.version)])).toEqual([[first.body.items[0].id, 2]]);
  });

  it('counts named receipts toward the receipt policy, for records created READY_FOR_EXPORT', async () => {
    const api = await t.ctx.as([...RECEIPT_WRITER, 'accounting.record.review']);
    await setPolicy(api, [{ currency: 'USD', above_minor: 10000, record_types: ['CARD_EXPENSE_POST'] }]);
    const lacking = await api.create(INGEST, { items: [item({ review_status: 'READY_FOR_EXPORT' })] });
    expect([lacking.status, lacking.body.error_code]).toEqual([422, 'RECEIPT_REQUIRED']);
    const receipt = await uploaded(api);
    const ready = await api.create(INGEST, {
      items: [item({ review_status: 'READY_FOR_EXPORT', receipt_ids: [receipt.id] })],
    });
    expect(ready.status, ready.text).toBe(200);
    expect(ready.body.items[0]).toMatchObject({ review_status: 'READY_FOR_EXPORT', receipts: [{ id: receipt.id }] });
  });
});
