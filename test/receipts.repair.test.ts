import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import {
  changeStoredBytes,
  follow,
  newJpeg,
  receiptFile,
  RECEIPT_WRITER,
  sha,
  storedBlobs,
  storedLinks,
  storedReceipts,
  uploadRaw,
} from './support/receipts.js';

/**
 * What the store holds is checked, not trusted: an upload of bytes a receipt row names already writes them again
 * when they were lost or damaged by hand, and a write of bytes that fails leaves nothing of them behind.
 */
describeEachDialect('receipts: bytes lost, damaged, or not written', (t) => {
  it('repairs a receipt whose bytes were deleted or changed by hand when the same bytes are uploaded again', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const record = await api.newRecord();
    const bytes = await newJpeg();
    const first = await uploadRaw(api, record.id, bytes, 'image/jpeg');
    expect(first.status, first.text).toBe(200);
    const { receipt } = first.body;

    // Deleted on the store: the row stands, its bytes are gone, and the link fails.
    await changeStoredBytes(t.ctx, api.accountId, receipt.sha256, null);
    expect((await follow(t.ctx.app, receipt.download_uri)).status).toBe(500);
    // The same bytes again, to the same record: answered unchanged, and the bytes are back.
    const again = await uploadRaw(api, record.id, bytes, 'image/jpeg');
    expect(again.status, again.text).toBe(200);
    expect(again.body.receipt.id).toBe(receipt.id);
    expect(again.body.record.version).toBe(first.body.record.version);
    const served = await follow(t.ctx.app, again.body.receipt.download_uri);
    expect(served.status).toBe(200);
    expect(served.raw.equals(bytes)).toBe(true);

    // Changed on the store (the same size, other bytes): uploaded alone, the same receipt, its bytes made whole.
    await changeStoredBytes(t.ctx, api.accountId, receipt.sha256, Buffer.alloc(bytes.length, 7));
    const alone = await api.request('POST', '/internal/v1/receipts', {
      body: bytes,
      headers: { 'content-type': 'image/jpeg' },
    });
    expect(alone.status, alone.text).toBe(200);
    expect(alone.body.id).toBe(receipt.id);
    const repaired = await follow(t.ctx.app, alone.body.download_uri);
    expect(repaired.status).toBe(200);
    expect(repaired.raw.equals(bytes)).toBe(true);

    expect((await storedReceipts(t.ctx, api.accountId)).map((r) => r.id)).toEqual([receipt.id]);
    expect(await storedBlobs(t.ctx, api.accountId)).toEqual([sha(bytes)]);
    expect(await storedLinks(t.ctx, api.accountId)).toEqual([{ record_id: record.id, receipt_id: receipt.id }]);
  });

  it('answers a write of the bytes that fails with a 500 in the error shape, and leaves no partial bytes', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const record = await api.newRecord();
    const bytes = await newJpeg();
    const digest = sha(bytes);
    // The fault: files, a folder where the file is to be renamed (after it was written whole under its temporary
    // name); PostgreSQL, the insert of the bytes failing with an I/O error (a full disk is 507: storage-full.test.ts).
    const undo = await failWrites(api.accountId, digest);
    const partials = () => {
      const folder = path.join(t.ctx.config.receipts.dir ?? '', '.partial');
      return fs.existsSync(folder) ? fs.readdirSync(folder) : [];
    };
    const before = t.dialect === 'sqlite' ? partials() : [];
    let res;
    try {
      res = await uploadRaw(api, record.id, bytes, 'image/jpeg');
    } finally {
      await undo();
    }
    expect(res.status, res.text).toBe(500);
    expect(res.body).toEqual(errorBody('INTERNAL_ERROR'));
    expect(res.headers['x-request-id']).toBe(res.body.request_id);
    // Nothing of the upload stays: no partial file (files), no row of bytes (PostgreSQL), no receipt, no attach.
    if (t.dialect === 'sqlite') expect(partials()).toEqual(before);
    expect(await storedBlobs(t.ctx, api.accountId)).toEqual([]);
    expect(await storedReceipts(t.ctx, api.accountId)).toEqual([]);
    expect(await storedLinks(t.ctx, api.accountId)).toEqual([]);

    // The fault gone, the same upload goes through.
    const retry = await uploadRaw(api, record.id, bytes, 'image/jpeg');
    expect(retry.status, retry.text).toBe(200);
    expect(await storedBlobs(t.ctx, api.accountId)).toEqual([digest]);
  });

  /** Makes the store's write of `digest` for the account fail; returns how to stop it. */
  async function failWrites(accountId: string, digest: string): Promise<() => Promise<void>> {
    if (t.dialect === 'sqlite') {
      const file = receiptFile(t.ctx, accountId, digest);
      fs.mkdirSync(path.join(file, 'in-the-way'), { recursive: true });
      return async () => fs.rmSync(file, { recursive: true });
    }
    const { direct } = t.ctx.db;
    await sql`create or replace function test_io_error() returns trigger language plpgsql as $$
      begin raise exception 'could not write block 7 of relation base/5/16384: Input/output error' using errcode = '58030'; end $$`.execute(
      direct,
    );
    await sql`create trigger test_io_error before insert on receipt_contents for each row
      when (new.account_id = ${sql.lit(accountId)}) execute function test_io_error()`.execute(direct);
    return async () => {
      await sql`drop trigger test_io_error on receipt_contents`.execute(direct);
    };
  }
});
