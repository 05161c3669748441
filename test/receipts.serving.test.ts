import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterEach, expect, it } from 'vitest';
import { advanceClock, freezeClock, resetClock } from '../src/lib/clock.js';
import type { ApiClient } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { follow, newJpeg, RECEIPT_WRITER, samples, uploadRaw } from './support/receipts.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const SANDBOX_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

/** A record with one receipt svc stores and one ingested with its own URI. */
async function recordWithReceipt(api: ApiClient) {
  const ingested = { id: 'erp_1', download_uris: ['https://files.example/erp_1.pdf'] };
  const record = await api.newRecord({ receipts: [ingested] });
  const bytes = await newJpeg();
  const res = await uploadRaw(api, record.id, bytes, 'image/jpeg');
  expect(res.status, res.text).toBe(200);
  return { record, bytes, receipt: res.body.receipt, ingested };
}

describeEachDialect(
  'receipts: serving through signed links',
  (t) => {
    it('answers working links in single reads and polls alike; ingested receipts keep their own URIs', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const { record, bytes, receipt, ingested } = await recordWithReceipt(api);
      const one = await api.get(`/v3/accounting/records/${record.id}`);
      const page = await api.get('/v3/accounting/records', { ids: [record.id] });
      const single = await api.get(`/v3/accounting/records/${record.id}`, { single_entry: 'true' });
      expect([one.status, page.status, single.status]).toEqual([200, 200, 200]);
      for (const answer of [one.body, page.body.items[0], single.body]) {
        expect(answer.receipts).toEqual([ingested, { id: receipt.id, download_uris: [expect.any(String)] }]);
        const got = await follow(t.ctx.app, answer.receipts[1].download_uris[0]);
        expect(got.status, got.text).toBe(200);
        expect(got.raw.equals(bytes)).toBe(true);
      }
      // The public record's members are the reference's, whatever svc stores.
      expect(Object.keys(one.body.receipts[1])).toEqual(['id', 'download_uris']);
      expect(one.body.receipts[1].download_uris[0]).toMatch(
        new RegExp(
          `^http://127\\.0\\.0\\.1:8080/internal/v1/receipts/${receipt.id}/content\\?account=[^&]+&expires=\\d+&signature=[A-Za-z0-9_-]+$`,
        ),
      );
    });

    it('streams the stored type with Content-Disposition, nosniff and a sandboxing CSP, and byte ranges', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const files = await samples();
      const record = await api.newRecord();
      for (const file of Object.values(files)) {
        const res = await uploadRaw(api, record.id, file.bytes, 'text/html');
        const got = await follow(t.ctx.app, res.body.receipt.download_uri);
        expect(got.status).toBe(200);
        expect(got.headers).toMatchObject({
          'content-type': file.type,
          'content-length': String(file.bytes.length),
          'content-disposition': expect.stringMatching(
            new RegExp(`^inline; filename="receipt-${res.body.receipt.id}\\.(jpg|png|webp|pdf)"$`),
          ),
          'x-content-type-options': 'nosniff',
          'content-security-policy': SANDBOX_CSP,
          'accept-ranges': 'bytes',
          etag: `"${sha(file.bytes)}"`,
        });
        expect(got.raw.equals(file.bytes)).toBe(true);
      }
      const { receipt, bytes } = await recordWithReceipt(api);
      const size = bytes.length;
      const first = await follow(t.ctx.app, receipt.download_uri, { range: 'bytes=0-9' });
      expect(first.status).toBe(206);
      expect(first.headers['content-range']).toBe(`bytes 0-9/${size}`);
      expect(first.raw.equals(bytes.subarray(0, 10))).toBe(true);
      const tail = await follow(t.ctx.app, receipt.download_uri, { range: 'bytes=-7' });
      expect(tail.status).toBe(206);
      expect(tail.headers['content-range']).toBe(`bytes ${size - 7}-${size - 1}/${size}`);
      expect(tail.raw.equals(bytes.subarray(size - 7))).toBe(true);
      const middle = await follow(t.ctx.app, receipt.download_uri, { range: 'bytes=100-' });
      expect(middle.status).toBe(206);
      expect(middle.raw.equals(bytes.subarray(100))).toBe(true);
      const past = await follow(t.ctx.app, receipt.download_uri, { range: `bytes=${size}-` });
      expect(past.status).toBe(416);
      expect(past.headers['content-range']).toBe(`bytes */${size}`);
    });

    it('makes JPEG thumbnails of images at most 320 px, and none of a PDF', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const record = await api.newRecord();
      const big = await sharp({ create: { width: 1000, height: 500, channels: 3, background: '#3060c0' } })
        .png()
        .toBuffer();
      const image = await uploadRaw(api, record.id, big, 'image/png');
      const thumb = await follow(t.ctx.app, image.body.receipt.thumbnail_uri);
      expect(thumb.status, thumb.text).toBe(200);
      expect(thumb.headers['content-type']).toBe('image/jpeg');
      expect(thumb.headers['x-content-type-options']).toBe('nosniff');
      const meta = await sharp(thumb.raw).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 320, 160]);

      const pdf = await uploadRaw(api, record.id, (await samples()).pdf.bytes, 'application/pdf');
      expect(pdf.body.receipt.thumbnail_uri).toBeNull();
      const none = await follow(t.ctx.app, pdf.body.receipt.download_uri.replace('/content?', '/thumbnail?'));
      expect(none.status, none.text).toBe(404);
      expect(none.body.error_code).toBe('NOT_FOUND');
    });

    afterEach(() => resetClock());

    it('refuses a link past its time (the injected clock), fresh links working again', async () => {
      // Stopped: only advanceClock moves it, so the link's 60 s are the test's and not the machine's speed.
      freezeClock();
      const api = await t.ctx.as(RECEIPT_WRITER);
      const { record, receipt } = await recordWithReceipt(api);
      advanceClock(59 * 1_000_000);
      expect((await follow(t.ctx.app, receipt.download_uri)).status).toBe(200);
      advanceClock(2 * 1_000_000);
      const expired = await follow(t.ctx.app, receipt.download_uri);
      expect(expired.status, expired.text).toBe(403);
      expect(expired.body).toMatchObject({ error_code: 'RECEIPT_LINK_EXPIRED', details: null });
      expect((await follow(t.ctx.app, receipt.thumbnail_uri)).body.error_code).toBe('RECEIPT_LINK_EXPIRED');
      const fresh = await api.get(`/v3/accounting/records/${record.id}`);
      expect((await follow(t.ctx.app, fresh.body.receipts[1].download_uris[0])).status).toBe(200);
    });

    it('refuses forged links, links moved to another account or receipt, and a token of another account finds no receipt', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const stranger = await t.ctx.as(RECEIPT_WRITER);
      const mine = await recordWithReceipt(api);
      const theirs = await recordWithReceipt(stranger);
      const url = new URL(mine.receipt.download_uri);
      const q = url.searchParams;
      const variants = {
        signature: (u: URL) => u.searchParams.set('signature', `${q.get('signature')!.slice(0, -2)}AA`),
        later: (u: URL) => u.searchParams.set('expires', String(Number(q.get('expires')) + 3600)),
        account: (u: URL) => u.searchParams.set('account', stranger.accountId),
        receipt: (u: URL) => (u.pathname = u.pathname.replace(mine.receipt.id, theirs.receipt.id)),
        theirsWithMine: (u: URL) => {
          const other = new URL(theirs.receipt.download_uri);
          u.searchParams.set('signature', other.searchParams.get('signature')!);
        },
      };
      for (const [name, change] of Object.entries(variants)) {
        const forged = new URL(url);
        change(forged);
        const res = await follow(t.ctx.app, forged.toString());
        expect([name, res.status, res.body.error_code]).toEqual([name, 403, 'INVALID_RECEIPT_LINK']);
      }
      for (const query of ['', '?account=x&expires=1']) {
        const res = await t.ctx.app.inject({ method: 'GET', url: `${url.pathname}${query}` });
        expect(res.statusCode).toBe(400);
      }
      // A link is the credential: a token of another account does not open it either.
      const other = await t.ctx.app.inject({
        method: 'GET',
        url: `/internal/v1/receipts/${mine.receipt.id}`,
        headers: { authorization: `Bearer ${stranger.token}` },
      });
      expect(other.statusCode).toBe(404);
    });
  },
  { RECEIPT_LINK_TTL_SECONDS: '60' },
);
