import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { migrateToLatest } from '../src/db/migrate.js';
import { INGEST, item } from './support/accounting.js';
import type { Api, Query } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { planOf } from './support/plans.js';
import { laterFrom, RECEIPT_LINKS, undoReceiptLinks } from './support/migrations.js';
import { newJpeg, receiptsUrl, storedLinks, uploadRaw } from './support/receipts.js';
import { ids, SEARCH } from './support/review.js';
import { ACCOUNTS, newAccount, operator, SANDBOX } from './support/sandbox.js';

const WRITER = ['accounting.record.admin', 'accounting.record.read', 'accounting.record.review'] as const;
const ALONE = '/internal/v1/receipts';
const INGESTED = { id: 'rc_source_1', download_uris: ['https://example.invalid/r.pdf'] };

async function attach(api: Api, recordId: string, bytes?: Buffer): Promise<string> {
  const res = await uploadRaw(api, recordId, bytes ?? (await newJpeg()), 'image/jpeg');
  expect(res.status, res.text).toBe(200);
  return res.body.receipt.id;
}

async function alone(api: Api, bytes?: Buffer): Promise<string> {
  const res = await api.request('POST', ALONE, {
    body: bytes ?? (await newJpeg()),
    headers: { 'content-type': 'image/jpeg', 'idempotency-key': randomUUID() },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.id;
}

async function found(api: Api, query: Query): Promise<string[]> {
  const res = await api.get(SEARCH, query);
  expect(res.status, res.text).toBe(200);
  return ids(res);
}

/**
 * Records with every kind of receipt list: none, an empty list, ingested with the source's links, one uploaded,
 * one uploaded then removed, one named at ingestion. Answers the records and the receipts attached.
 */
async function writeRecords(api: Api) {
  const [none, empty, ingested, uploaded, removed] = await api.newRecords([
    {},
    { receipts: [] },
    { receipts: [INGESTED] },
    {},
    {},
  ]);
  const onUploaded = await attach(api, uploaded.id);
  const bytes = await newJpeg();
  const gone = await attach(api, removed.id, bytes);
  const del = await api.request('DELETE', `${receiptsUrl(removed.id)}/${gone}`);
  expect(del.status, del.text).toBe(200);
  const free = await alone(api);
  const res = await api.create(INGEST, { items: [item({ receipt_ids: [free] })] });
  expect(res.status, res.text).toBe(200);
  const named = res.body.items[0].id as string;
  return { none, empty, ingested, uploaded, removed, named, onUploaded, gone, bytes, free };
}

describeEachDialect(
  'receipts: which record lists each receipt (the receipt links, 0030)',
  (t) => {
    it('keeps the links with every attachment and removal; the queue filter and the one-record check read them', async () => {
      const api = await t.ctx.as(WRITER);
      const r = await writeRecords(api);
      expect(await storedLinks(t.ctx, api.accountId)).toEqual(
        [
          { record_id: r.ingested.id, receipt_id: INGESTED.id },
          { record_id: r.uploaded.id, receipt_id: r.onUploaded },
          { record_id: r.named, receipt_id: r.free },
        ].sort((a, b) => (a.record_id < b.record_id ? -1 : 1)),
      );
      expect(await found(api, { receipt: 'present' })).toEqual([r.ingested.id, r.uploaded.id, r.named]);
      expect(await found(api, { receipt: 'missing' })).toEqual([r.none.id, r.empty.id, r.removed.id]);

      // Removed, a receipt may be named for another record at ingestion; attached, it may not.
      const again = await api.create(INGEST, { items: [item({ receipt_ids: [r.gone] })] });
      expect(again.status, again.text).toBe(200);
      const refused = await api.create(INGEST, { items: [item({ receipt_ids: [r.onUploaded] })] });
      expect([refused.status, refused.body.details?.errors]).toEqual([
        400,
        [
          {
            path: '/items/0/receipt_ids/0',
            message: `names receipt ${r.onUploaded}, attached to record ${r.uploaded.id} already: a receipt belongs to one record`,
          },
        ],
      ]);
      // And the upload of its bytes to a record other than the one that now lists it is refused, naming that one.
      const other = await uploadRaw(api, r.removed.id, r.bytes, 'image/jpeg');
      expect([other.status, other.body.details?.attached_to_record_id]).toEqual([409, again.body.items[0].id]);
    });

    it('lets one of two records racing for the same bytes have them, the other refused 409', async () => {
      const api = await t.ctx.as(WRITER);
      const records = [await api.newRecord(), await api.newRecord()];
      const bytes = await newJpeg();
      const answers = await Promise.all(records.map((r) => uploadRaw(api, r.id, bytes, 'image/jpeg')));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const won = answers.findIndex((r) => r.status === 200);
      const lost = 1 - won;
      expect(answers[lost]!.body.details.attached_to_record_id).toBe(records[won]!.id);
      expect(await storedLinks(t.ctx, api.accountId)).toEqual([
        { record_id: records[won]!.id, receipt_id: answers[won]!.body.receipt.id },
      ]);
    });

    it('reads an index for both questions (the plans name it)', async () => {
      const byRecord = await planOf(
        t.ctx,
        'select 1 from accounting_records r where r.account_id = ? and exists (select 1 from accounting_record_receipts x where x.account_id = r.account_id and x.record_id = r.id)',
        ['acc'],
      );
      // SQLite names a text primary key's index sqlite_autoindex_<table>_1.
      const index =
        /(sqlite_autoindex_accounting_record_receipts_1|accounting_record_receipts_pk|accounting_record_receipts_receipt_idx)/;
      expect(byRecord).toMatch(index);
      expect(byRecord).not.toMatch(/SCAN x|Seq Scan on accounting_record_receipts/);
      const byReceipt = await planOf(
        t.ctx,
        'select receipt_id, record_id from accounting_record_receipts where account_id = ? and receipt_id in (?, ?)',
        ['acc', 'rcpt_a', 'rcpt_b'],
      );
      expect(byReceipt).toMatch(/accounting_record_receipts_receipt_idx/);
      expect(byReceipt).not.toMatch(/SCAN accounting_record_receipts|Seq Scan/);
    });

    it("a sandbox reset takes the account's links with its records", async () => {
      const { creds, api } = await newAccount(t.ctx);
      await attach(api, (await api.newRecord()).id);
      expect((await storedLinks(t.ctx, creds.account_id)).length).toBe(1);
      const reset = await operator(t.ctx).post(`${ACCOUNTS}/${creds.account_id}/reset`, {});
      expect(reset.status, reset.text).toBe(200);
      expect(await storedLinks(t.ctx, creds.account_id)).toEqual([]);
    });

    it('migration 0030 gives the records written before it their links, from their stored receipts', async () => {
      const api = await t.ctx.as(WRITER);
      const r = await writeRecords(api);
      const written = await storedLinks(t.ctx, api.accountId);
      const db = t.ctx.db.direct;
      await undoReceiptLinks(db);
      // As a release before 0030 left them: a record its source sent one receipt twice, and two records listing
      // one receipt svc stores (an upload attached the same bytes to another record then).
      const twice = JSON.stringify([INGESTED, INGESTED]);
      const shared = JSON.stringify([{ id: r.onUploaded, download_uris: ['svc-receipt:stored'] }]);
      for (const [id, json] of [
        [r.empty.id, twice],
        [r.none.id, shared],
      ] as const) {
        await db
          .updateTable('accounting_record_details')
          .set({ receipts_json: json })
          .where('account_id', '=', api.accountId)
          .where('id', '=', id)
          .execute();
      }

      expect(await migrateToLatest(t.ctx.db)).toEqual(laterFrom(RECEIPT_LINKS));
      const expected = [
        ...written,
        { record_id: r.empty.id, receipt_id: INGESTED.id },
        { record_id: r.none.id, receipt_id: r.onUploaded },
      ].sort((a, b) => (a.record_id < b.record_id ? -1 : a.record_id > b.record_id ? 1 : 0));
      expect(await storedLinks(t.ctx, api.accountId)).toEqual(expected);
      expect(await found(api, { receipt: 'missing' })).toEqual([r.removed.id]);
      // The receipt two records listed before 0030: neither may take it again elsewhere, and each keeps it.
      const res = await uploadRaw(api, r.removed.id, r.bytes, 'image/jpeg');
      expect(res.status, res.text).toBe(200);
      const named = await api.create(INGEST, { items: [item({ receipt_ids: [r.onUploaded] })] });
      expect(named.status).toBe(400);
      expect(named.body.details.errors[0].message).toMatch(/attached to record accr_/);
    });
  },
  SANDBOX,
);
