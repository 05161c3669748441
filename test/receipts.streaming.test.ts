import { createHash, randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { CHUNK_BYTES, postgresStore } from '../src/modules/receipts/postgres-store.repository.js';
import { describeEachDialect } from './support/context.js';
import { follow, PDF, RECEIPT_WRITER, uploadRaw } from './support/receipts.js';

const MiB = 1024 * 1024;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describeEachDialect('receipts: a multi-MB receipt downloaded whole and by ranges', (t) => {
  it('answers the exact bytes, whole and for ranges within, across and at the edges of the read chunks (256 KiB)', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    // A PDF by its first bytes, 3.5 MiB and some (not a multiple of the chunk), incompressible.
    const bytes = Buffer.concat([PDF, randomBytes(3.5 * MiB + 12_345)]);
    const size = bytes.length;
    const up = await uploadRaw(api, (await api.newRecord()).id, bytes, 'application/pdf');
    expect(up.status, up.text).toBe(200);
    const link = up.body.receipt.download_uri;

    const whole = await follow(t.ctx.app, link);
    expect([whole.status, whole.headers['content-length'], whole.raw.length]).toEqual([200, String(size), size]);
    expect(sha(whole.raw)).toBe(sha(bytes));

    const ranges: [string, number, number][] = [
      ['bytes=0-0', 0, 0],
      ['bytes=0-1048575', 0, MiB - 1],
      ['bytes=1048575-1048576', MiB - 1, MiB],
      [`bytes=1000-${3 * MiB + 10}`, 1000, 3 * MiB + 10],
      [`bytes=${2 * MiB}-`, 2 * MiB, size - 1],
      ['bytes=-5000', size - 5000, size - 1],
      [`bytes=${size - 1}-${size + 100}`, size - 1, size - 1],
    ];
    for (const [header, start, end] of ranges) {
      const part = await follow(t.ctx.app, link, { range: header });
      expect([header, part.status, part.headers['content-range']]).toEqual([
        header,
        206,
        `bytes ${start}-${end}/${size}`,
      ]);
      expect(part.headers['content-length']).toBe(String(end - start + 1));
      expect(part.raw.equals(bytes.subarray(start, end + 1)), header).toBe(true);
    }
    // PostgreSQL reads it a chunk at a time, as the client takes them, never the whole bytea at once.
    if (t.ctx.dialect === 'postgres') {
      const stream = await postgresStore().read(t.ctx.db.direct, api.accountId, up.body.receipt.sha256);
      const sizes: number[] = [];
      for await (const chunk of stream!) sizes.push((chunk as Buffer).length);
      const whole = Math.floor(size / CHUNK_BYTES);
      expect(sizes).toEqual([...Array<number>(whole).fill(CHUNK_BYTES), size - whole * CHUNK_BYTES]);
    }
    const past = await follow(t.ctx.app, link, { range: `bytes=${size}-` });
    expect([past.status, past.headers['content-range']]).toEqual([416, `bytes */${size}`]);
  });
});
