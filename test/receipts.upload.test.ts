import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { newUser, Browser } from './support/console.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import {
  follow,
  multipartBody,
  newJpeg,
  receiptsUrl,
  RECEIPT_WRITER,
  samples,
  sha,
  storedBlobs,
  storedLinks,
  storedReceipts,
  uploadMultipart,
  uploadRaw,
} from './support/receipts.js';

describeEachDialect(
  'receipts: upload',
  (t) => {
    it('accepts JPEG, PNG, WebP and PDF by their bytes, raw and multipart, and attaches each to the record', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const record = await api.newRecord();
      const files = await samples();
      const answered: any[] = [];
      for (const [name, file] of Object.entries(files)) {
        // Raw bodies declare nothing true: the type comes from the bytes.
        const res =
          name === 'png'
            ? await uploadMultipart(api, record.id, file.bytes, 'scan.txt', 'text/plain')
            : await uploadRaw(api, record.id, file.bytes, 'application/octet-stream');
        expect(res.status, res.text).toBe(200);
        expect(res.body.receipt).toEqual({
          id: expect.stringMatching(/^rcpt_/),
          content_type: file.type,
          size_bytes: file.bytes.length,
          sha256: sha(file.bytes),
          created_at: expect.any(String),
          download_uri: expect.stringContaining(`/internal/v1/receipts/${res.body.receipt.id}/content?`),
          thumbnail_uri: name === 'pdf' ? null : expect.stringContaining('/thumbnail?'),
        });
        answered.push(res.body);
      }
      const last = answered.at(-1).record;
      expect(last.version).toBe(record.version + 4);
      expect(last.receipts.map((r: any) => r.id)).toEqual(answered.map((a) => a.receipt.id));
      expect(
        last.receipts.every((r: any) => r.download_uris.length === 1 && r.download_uris[0].includes('signature=')),
      ).toBe(true);

      const rows = await storedReceipts(t.ctx, api.accountId);
      expect(rows.map((r) => [r.content_type, Number(r.size_bytes), r.sha256]).sort()).toEqual(
        Object.values(files)
          .map((f) => [f.type, f.bytes.length, sha(f.bytes)])
          .sort(),
      );
      expect(await storedBlobs(t.ctx, api.accountId)).toEqual(
        Object.values(files)
          .map((f) => sha(f.bytes))
          .sort(),
      );
      // Each stored file is the bytes sent.
      for (const a of answered) {
        const got = await follow(t.ctx.app, a.receipt.download_uri);
        expect(got.status).toBe(200);
        expect(sha(got.raw)).toBe(a.receipt.sha256);
      }

      const history = await api.get(`/internal/v1/accounting/records/${record.id}/history`);
      expect(history.status, history.text).toBe(200);
      // Each attachment is announced (webhooks and the feed), with the version it produced.
      const feed = await api.get('/v1/events', { type: ['accounting_record.receipt_attached'] });
      expect(feed.status, feed.text).toBe(200);
      expect(feed.body.items.map((e: any) => e.data)).toEqual(
        answered.map((a, i) => ({
          object: 'accounting_record',
          id: record.id,
          version: record.version + i + 1,
          receipt_id: a.receipt.id,
        })),
      );
      expect(history.body.items.slice(1).map((e: any) => [e.type, e.changes])).toEqual(
        answered.map((a) => ['RECEIPT_ATTACHED', { receipt_id: a.receipt.id }]),
      );
    });

    it('stores the same bytes once per account; attached to one record, they are refused for another (409 naming it)', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const [first, second] = [await api.newRecord(), await api.newRecord()];
      const bytes = await newJpeg();
      const a = await uploadRaw(api, first.id, bytes, 'image/jpeg');
      const b = await uploadRaw(api, second.id, bytes, 'image/jpeg');
      const again = await uploadRaw(api, first.id, bytes, 'image/jpeg');
      expect([a.status, b.status, again.status]).toEqual([200, 409, 200]);
      const id = a.body.receipt.id;
      expect(b.body).toEqual(
        errorBody('RECEIPT_ATTACHED_ELSEWHERE', {
          message: `Receipt ${id} (the same file: a receipt is its bytes) is attached to accounting record ${first.id} already, and a receipt belongs to one record: nothing was attached to ${second.id}. Remove it from ${first.id} first if it was attached there by mistake.`,
          details: { accounting_record_id: second.id, receipt_id: id, attached_to_record_id: first.id },
        }),
      );
      // Already attached: the record is answered unchanged; the other record is as it was.
      expect(again.body.record.version).toBe(a.body.record.version);
      expect(again.body.record.receipts.map((r: any) => r.id)).toEqual([id]);
      const untouched = await api.get(`/v3/accounting/records/${second.id}`);
      expect([untouched.body.version, untouched.body.receipts]).toEqual([second.version, second.receipts]);
      expect((await storedReceipts(t.ctx, api.accountId)).length).toBe(1);
      expect(await storedBlobs(t.ctx, api.accountId)).toEqual([sha(bytes)]);

      // Removed from the first record, it may go to the second; then the first is refused, naming the second.
      const removed = await api.request('DELETE', `${receiptsUrl(first.id)}/${id}`);
      expect(removed.status, removed.text).toBe(200);
      const moved = await uploadRaw(api, second.id, bytes, 'image/jpeg');
      expect([moved.status, moved.body.receipt?.id]).toEqual([200, id]);
      const back = await uploadRaw(api, first.id, bytes, 'image/jpeg');
      expect([back.status, back.body.details]).toEqual([
        409,
        { accounting_record_id: first.id, receipt_id: id, attached_to_record_id: second.id },
      ]);
      expect(await storedLinks(t.ctx, api.accountId)).toEqual([{ record_id: second.id, receipt_id: id }]);

      // Another account's same bytes are its own receipt.
      const other = await t.ctx.as(RECEIPT_WRITER);
      const theirs = await uploadRaw(other, (await other.newRecord()).id, bytes, 'image/jpeg');
      expect(theirs.status).toBe(200);
      expect(theirs.body.receipt.id).not.toBe(id);
    });

    it('refuses bytes of another type whatever the declared type and name, with nothing stored', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const record = await api.newRecord();
      const cases = [
        await uploadRaw(
          api,
          record.id,
          Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
          'image/jpeg',
        ),
        await uploadRaw(api, record.id, Buffer.from('<html><body>hi</body></html>'), 'image/png'),
        await uploadMultipart(api, record.id, Buffer.from('GIF89a not really'), 'photo.jpg', 'image/jpeg'),
        await uploadRaw(api, record.id, Buffer.from('PK\u0003\u0004zipzipzip'), 'application/pdf'),
      ];
      for (const res of cases) {
        expect(res.status, res.text).toBe(415);
        expect(res.body).toEqual({
          error_code: 'UNSUPPORTED_RECEIPT_TYPE',
          message: expect.any(String),
          details: {
            detected_type: expect.toSatisfy((v: unknown) => v === null || typeof v === 'string'),
            accepted_types: ['image/jpeg', 'image/png', 'image/webp', 'application/pdf', 'image/heic'],
          },
          request_id: expect.any(String),
        });
      }
      expect(await storedReceipts(t.ctx, api.accountId)).toEqual([]);
      expect(await storedBlobs(t.ctx, api.accountId)).toEqual([]);
      expect((await api.get(`/v3/accounting/records/${record.id}`)).body.version).toBe(record.version);
    });

    it('refuses an empty body (400) and a file over RECEIPT_MAX_BYTES (413), raw and multipart', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const record = await api.newRecord();
      const empty = await uploadRaw(api, record.id, Buffer.alloc(0), 'image/jpeg');
      expect(empty.status, empty.text).toBe(400);
      expect(empty.body.error_code).toBe('INVALID_REQUEST');
      // A malformed multipart body is the body's fault: 400, never a failure of the server.
      for (const garbage of ['xxxx', '--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc']) {
        const bad = await uploadRaw(api, record.id, Buffer.from(garbage), 'multipart/form-data; boundary=x');
        expect(bad.status, bad.text).toBe(400);
        expect(bad.body.error_code).toBe('INVALID_REQUEST');
      }

      // A JPEG with 5000 bytes after its end: recognised as a JPEG, one byte of it too many.
      const jpeg = await newJpeg();
      const big = Buffer.concat([jpeg, Buffer.alloc(4097 - jpeg.length, 7)]);
      expect(big.length).toBe(4097);
      const raw = await uploadRaw(api, record.id, big, 'image/jpeg');
      expect(raw.status, raw.text).toBe(413);
      expect(raw.body).toMatchObject({ error_code: 'PAYLOAD_TOO_LARGE', details: { limit_bytes: 4096 } });
      const form = await uploadMultipart(api, record.id, big);
      expect(form.status, form.text).toBe(413);
      expect(form.body).toMatchObject({ error_code: 'PAYLOAD_TOO_LARGE', details: { limit_bytes: 4096 } });
      expect(await storedReceipts(t.ctx, api.accountId)).toEqual([]);
    });

    it('refuses one receipt more than RECEIPTS_PER_RECORD (409), ingested receipts counted, and keeps theirs as ingested', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const ingested = [1, 2, 3].map((n) => ({ id: `theirs_${n}`, download_uris: [`https://files.example/${n}.pdf`] }));
      const record = await api.newRecord({ receipts: ingested });
      expect((await uploadRaw(api, record.id, await newJpeg(), 'image/jpeg')).status).toBe(200);
      const third = await uploadRaw(api, record.id, await newJpeg(), 'image/jpeg');
      expect(third.status, third.text).toBe(409);
      expect(third.body).toMatchObject({
        error_code: 'RECEIPT_LIMIT_REACHED',
        details: { accounting_record_id: record.id, limit: 4 },
      });
      // The file of the refused upload was written and is named by no row; the record is as it was.
      const now = await api.get(`/v3/accounting/records/${record.id}`);
      expect(now.body.version).toBe(record.version + 1);
      expect(now.body.receipts.slice(0, 3)).toEqual(ingested);
      expect((await storedReceipts(t.ctx, api.accountId)).length).toBe(1);
    });

    it("answers 404 for another account's record and 403 without a write scope, storing nothing", async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const stranger = await t.ctx.as(RECEIPT_WRITER);
      const theirs = await stranger.newRecord();
      const bytes = await newJpeg();
      const foreign = await uploadRaw(api, theirs.id, bytes, 'image/jpeg');
      expect(foreign.status, foreign.text).toBe(404);
      expect(foreign.body.error_code).toBe('NOT_FOUND');
      const reader = await t.ctx.as(['accounting.record.read'], stranger.accountId);
      const refused = await uploadRaw(reader, theirs.id, bytes, 'image/jpeg');
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.error_code).toBe('FORBIDDEN');
      expect(await storedReceipts(t.ctx, api.accountId)).toEqual([]);
      expect(await storedReceipts(t.ctx, stranger.accountId)).toEqual([]);
      expect(await storedBlobs(t.ctx, api.accountId)).toEqual([]);
    });

    it('honours Idempotency-Key: the same file replays, another file under the key is 422', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const record = await api.newRecord();
      const key = { 'idempotency-key': randomUUID() };
      const bytes = await newJpeg();
      const first = await uploadRaw(api, record.id, bytes, 'image/jpeg', key);
      const replay = await uploadRaw(api, record.id, bytes, 'image/jpeg', key);
      expect(first.status, first.text).toBe(200);
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body.receipt.id).toBe(first.body.receipt.id);
      expect(replay.body.record.version).toBe(first.body.record.version);
      const other = await uploadRaw(api, record.id, await newJpeg(), 'image/jpeg', key);
      expect(other.status, other.text).toBe(422);
      expect(other.body.error_code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect((await storedReceipts(t.ctx, api.accountId)).length).toBe(1);
    });

    it('lets a signed-in console user upload (session and CSRF) and remove, keeping the history', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const record = await api.newRecord({ review_status: 'REVIEW' });
      const user = await newUser(t.ctx.db, 'BOOKKEEPER', api.accountId);
      const browser = await Browser.signIn(t.ctx.app, user);
      const { body, contentType } = multipartBody(await newJpeg(), 'IMG_1.jpg', 'image/jpeg');
      const res = await browser.request('POST', receiptsUrl(record.id), {
        body,
        headers: { 'content-type': contentType },
      });
      expect(res.status, res.text).toBe(200);
      const receiptId = res.body.receipt.id;

      const removed = await browser.delete(`${receiptsUrl(record.id)}/${receiptId}`);
      expect(removed.status, removed.text).toBe(200);
      expect(removed.body.record.receipts).toEqual([]);
      expect(removed.body.record.version).toBe(record.version + 2);
      const again = await browser.delete(`${receiptsUrl(record.id)}/${receiptId}`);
      expect(again.status).toBe(404);

      const history = await api.get(`/internal/v1/accounting/records/${record.id}/history`);
      expect(history.body.items.slice(1).map((e: any) => [e.type, e.changes, e.actor.type])).toEqual([
        ['RECEIPT_ATTACHED', { receipt_id: receiptId }, 'user'],
        ['RECEIPT_REMOVED', { receipt_id: receiptId }, 'user'],
      ]);
      // Removed from the record, still stored: the history leads to it.
      const kept = await api.get(`/internal/v1/receipts/${receiptId}`);
      expect(kept.status, kept.text).toBe(200);
      expect((await follow(t.ctx.app, kept.body.download_uri)).status).toBe(200);
    });
  },
  { RECEIPT_MAX_BYTES: '4096', RECEIPTS_PER_RECORD: '4' },
);
