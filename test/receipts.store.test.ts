import { expect, it } from 'vitest';
import { receiptsService, receiptStore } from '../src/modules/receipts/receipts.service.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { follow, newJpeg, RECEIPT_WRITER, sha, storedBlobs, storedReceipts, uploadRaw } from './support/receipts.js';

/** The service as the server builds it (src/server.ts), for its sweep. */
const serviceOf = (ctx: TestContext) =>
  receiptsService({
    store: receiptStore(ctx.config.receipts.dir),
    maxBytes: ctx.config.receipts.maxBytes,
    perRecord: ctx.config.receipts.perRecord,
  });

/**
 * The bytes are made durable in a step of their own before the short transaction that names them (issue 32's
 * measured upload): uploads arriving together share that transaction's commit, the same bytes are stored once,
 * and bytes an upload never named (a process killed between the two) are swept.
 */
describeEachDialect('receipts: the store between the bytes and the row', (t) => {
  it('stores one copy of the same bytes uploaded five times at once, one receipt answered to all', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const bytes = await newJpeg();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        api.request('POST', '/internal/v1/receipts', { body: bytes, headers: { 'content-type': 'image/jpeg' } }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect((await storedReceipts(t.ctx, api.accountId)).map((r) => r.sha256)).toEqual([sha(bytes)]);
    expect(await storedBlobs(t.ctx, api.accountId)).toEqual([sha(bytes)]);
  });

  it('attaches uploads to ten records at once (a shared commit), each answered, listed, kept in history and served', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const records = await Promise.all(Array.from({ length: 10 }, () => api.newRecord()));
    const files = await Promise.all(records.map((_, i) => newJpeg(64 + i)));
    const answers = await Promise.all(
      records.map((r, i) => uploadRaw(api, r.id, files[i]!, 'image/jpeg', { 'idempotency-key': `k-${i}` })),
    );
    expect(answers.map((a) => a.status)).toEqual(records.map(() => 200));
    for (const [i, record] of records.entries()) {
      const answer = answers[i]!.body;
      expect(answer.receipt.sha256).toBe(sha(files[i]!));
      expect(answer.record.version).toBe(record.version + 1);
      const now = await api.request('GET', `/v3/accounting/records/${record.id}`, { headers: {} });
      expect(now.body.receipts.map((r: any) => r.id)).toEqual([answer.receipt.id]);
      const history = await api.get(`/internal/v1/accounting/records/${record.id}/history`);
      expect(history.body.items.map((e: any) => e.type)).toContain('RECEIPT_ATTACHED');
      const got = await follow(t.ctx.app, answer.receipt.download_uri);
      expect(sha(got.raw)).toBe(sha(files[i]!));
    }
    // A retry of each answers the same, from its Idempotency-Key.
    const again = await Promise.all(
      records.map((r, i) => uploadRaw(api, r.id, files[i]!, 'image/jpeg', { 'idempotency-key': `k-${i}` })),
    );
    expect(again.map((a) => a.body)).toEqual(answers.map((a) => a.body));
    expect(again.map((a) => a.headers['idempotent-replayed'])).toEqual(records.map(() => 'true'));
    expect(await storedBlobs(t.ctx, api.accountId)).toEqual(files.map(sha).sort());
  });

  it('sweeps bytes written by an upload that never attached them (killed in between), and keeps those named', async () => {
    const api = await t.ctx.as(RECEIPT_WRITER);
    const record = await api.newRecord();
    const kept = await newJpeg();
    const res = await uploadRaw(api, record.id, kept, 'image/jpeg');
    expect(res.status, res.text).toBe(200);
    // The first step of an upload, its transaction never run: as a process killed between the two leaves it.
    const orphan = await newJpeg();
    const store = receiptStore(t.ctx.config.receipts.dir);
    await store.write(t.ctx.db.direct, api.accountId, sha(orphan), orphan);
    expect(await storedBlobs(t.ctx, api.accountId)).toEqual([sha(kept), sha(orphan)].sort());
    expect(await storedReceipts(t.ctx, api.accountId)).toHaveLength(1);

    // The start-up sweep (alone: no grace).
    expect(await serviceOf(t.ctx).sweep(t.ctx.db, 0)).toBe(1);
    expect(await storedBlobs(t.ctx, api.accountId)).toEqual([sha(kept)]);
    const got = await follow(t.ctx.app, res.body.receipt.download_uri);
    expect(sha(got.raw)).toBe(sha(kept));
    // The same bytes uploaded later are stored again, whole.
    const later = await uploadRaw(api, record.id, orphan, 'image/jpeg');
    expect(later.status, later.text).toBe(200);
    expect(sha((await follow(t.ctx.app, later.body.receipt.download_uri)).raw)).toBe(sha(orphan));
  });
});

/** PostgreSQL's sweep runs at any time on any node: it and the uploads' transactions lock each other out. */
describeEachDialect(
  'receipts: PostgreSQL sweep beside uploads',
  (t) => {
    it('skips bytes a transaction is naming, and a transaction that finds its bytes swept writes them again', async () => {
      const api = await t.ctx.as(RECEIPT_WRITER);
      const store = receiptStore(null);
      const service = serviceOf(t.ctx);
      const held = await newJpeg();
      await store.write(t.ctx.db.direct, api.accountId, sha(held), held);
      // A transaction naming the bytes (keep: their row locked) while a sweep runs: the sweep leaves them.
      let release!: () => void;
      const releasing = new Promise<void>((resolve) => (release = resolve));
      let kept!: () => void;
      const keeping = new Promise<void>((resolve) => (kept = resolve));
      const naming = t.ctx.db.write(async (ex) => {
        await store.keep(ex, api.accountId, sha(held), held);
        kept();
        await releasing;
      });
      await keeping;
      expect(await service.sweep(t.ctx.db, 0)).toBe(0);
      release();
      await naming;
      expect(await storedBlobs(t.ctx, api.accountId)).toEqual([sha(held)]);

      // Swept between the write and the transaction: keep writes them again, and they are whole.
      expect(await service.sweep(t.ctx.db, 0)).toBe(1);
      expect(await storedBlobs(t.ctx, api.accountId)).toEqual([]);
      await t.ctx.db.write((ex) => store.keep(ex, api.accountId, sha(held), held));
      const body = await store.read(t.ctx.db.direct, api.accountId, sha(held));
      const chunks: Buffer[] = [];
      for await (const chunk of body!) chunks.push(chunk as Buffer);
      expect(sha(Buffer.concat(chunks))).toBe(sha(held));
    });
  },
  {},
  { only: 'postgres' },
);
