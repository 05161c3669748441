import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestContext } from './support/context.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { valuesUrl } from './support/field-values.js';
import { PDF, RECEIPT_WRITER, sha, storedBlobs, storedLinks, storedReceipts, uploadRaw } from './support/receipts.js';
import { storedValues } from './support/stored.js';

/**
 * A full disk answers 507 INSUFFICIENT_STORAGE (docs/design.md, "Errors"): nothing of the request is stored, no
 * Retry-After (waiting a second makes no room), and its Idempotency-Key stays free, so the same request goes through
 * once there is room. The faults are real where they can be made so here: SQLite's database at its page limit
 * (`max_page_count`: SQLITE_FULL, as a full disk gives it), and the receipts' files on a file system that is full (a
 * 1 MiB tmpfs, mounted by the test: it needs root, as CI has). PostgreSQL's full disk cannot be made without filling
 * the server's disk: a trigger raises its error (53100 disk_full), as the server does when it cannot extend a file.
 */

/** A receipt too large for the small file system below (a PDF by its first bytes, random and so incompressible). */
const LARGE_PDF = Buffer.concat([PDF, Buffer.from('%'), randomBytes(1_500_000)]);

const FULL_DIR = path.join(os.tmpdir(), `svc-full-${randomBytes(6).toString('hex')}`);
let mounted = false;
const unmount = () => {
  if (mounted) execFileSync('umount', ['-l', FULL_DIR]);
  mounted = false;
};

beforeAll(() => {
  fs.mkdirSync(FULL_DIR, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'svc-test-full', FULL_DIR], { stdio: 'pipe' });
    mounted = true;
    // A worker that exits without afterAll (killed by vitest) leaves no mount behind.
    process.once('exit', unmount);
  } catch {
    // Not allowed here (mounting needs root with CAP_SYS_ADMIN, as CI's machine has): the file test says skipped.
  }
});

afterAll(() => {
  unmount();
  fs.rmSync(FULL_DIR, { recursive: true, force: true });
});

function expectStorageFull(res: { status: number; body: unknown; headers: Record<string, unknown>; text: string }) {
  expect(res.status, res.text).toBe(507);
  expect(res.body).toEqual(errorBody('INSUFFICIENT_STORAGE'));
  expect(res.headers['retry-after']).toBeUndefined();
  expect(res.headers['x-request-id']).toBe((res.body as { request_id: string }).request_id);
}

/** PostgreSQL's answer to a write it has no room for, raised by a trigger on `table` for the account's rows. */
async function pgDiskFull(ctx: TestContext, table: string, accountId: string): Promise<() => Promise<void>> {
  const { direct } = ctx.db;
  const name = `test_full_${randomBytes(4).toString('hex')}`;
  await sql`create or replace function ${sql.raw(name)}() returns trigger language plpgsql as $$
    begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$`.execute(
    direct,
  );
  await sql`create trigger ${sql.raw(name)} before insert on ${sql.table(table)} for each row
    when (new.account_id = ${sql.lit(accountId)}) execute function ${sql.raw(name)}()`.execute(direct);
  return async () => {
    await sql`drop trigger ${sql.raw(name)} on ${sql.table(table)}`.execute(direct);
    await sql`drop function ${sql.raw(name)}()`.execute(direct);
  };
}

/** SQLite's database kept from growing (`max_page_count` at its size now), as a full disk would; returns the undo. */
async function sqliteAtItsLimit(ctx: TestContext): Promise<() => Promise<void>> {
  const { direct } = ctx.db;
  const limit = await sql<{ max_page_count: number }>`pragma max_page_count`.execute(direct);
  const pages = await sql<{ page_count: number }>`pragma page_count`.execute(direct);
  await sql.raw(`pragma max_page_count = ${pages.rows[0]!.page_count}`).execute(direct);
  return async () => {
    await sql.raw(`pragma max_page_count = ${limit.rows[0]!.max_page_count}`).execute(direct);
  };
}

describeEachDialect('storage full: the database', (t) => {
  it('answers a batch the database has no room for 507, stores none of it, and takes the same key once there is room', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write', 'field_values.read']);
    const fieldId = await api.newField();
    // 1000 values of 200 characters: about 300 KB, more than the database has free once it may not grow.
    const items = Array.from({ length: 1000 }, (_, i) => ({
      value: `${String(i).padStart(4, '0')} ${'x'.repeat(195)}`,
    }));
    const undo =
      t.dialect === 'sqlite' ? await sqliteAtItsLimit(t.ctx) : await pgDiskFull(t.ctx, 'field_values', api.accountId);
    const key = randomUUID();
    let refused;
    try {
      refused = await api.post(valuesUrl(fieldId), { items }, { 'idempotency-key': key });
    } finally {
      await undo();
    }
    expectStorageFull(refused);
    expect(await storedValues(t.ctx, api.accountId, fieldId)).toEqual([]);

    // Room made: the same key and body are run (nothing was stored for the key), not refused nor replayed.
    const done = await api.post(valuesUrl(fieldId), { items }, { 'idempotency-key': key });
    expect(done.status, done.text).toBe(200);
    expect(done.headers['idempotent-replayed']).toBeUndefined();
    expect(done.body.items).toHaveLength(1000);
    expect((await storedValues(t.ctx, api.accountId, fieldId)).map((v) => v.value)).toEqual(items.map((i) => i.value));
  });

  it("answers a token the database has no room for 507 in OAuth's shape (server_error, said in words), never cached", async () => {
    const creds = await t.ctx.newClient(['fields.read']);
    const ask = () =>
      t.ctx.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        payload: { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret },
      });
    // SQLite: tokens are issued until one needs a page the database may not add (a page holds a few dozen).
    const undo =
      t.dialect === 'sqlite'
        ? await sqliteAtItsLimit(t.ctx)
        : await pgDiskFull(t.ctx, 'access_tokens', creds.account_id);
    let refused;
    try {
      for (let issued = 0; issued < 2000 && (refused === undefined || refused.statusCode === 200); issued++)
        refused = await ask();
    } finally {
      await undo();
    }
    expect(refused?.statusCode, refused?.body).toBe(507);
    expect(refused?.json()).toEqual({ error: 'server_error', error_description: expect.stringContaining('no room') });
    expect(refused?.headers['cache-control']).toBe('no-store');
    expect(refused?.headers['retry-after']).toBeUndefined();
    expect((await ask()).statusCode).toBe(200);
  });
});

describeEachDialect(
  'storage full: a transaction SQLite ended itself',
  (t) => {
    it('fails with the error that ended it, not with the ROLLBACK that finds no transaction', async () => {
      // SQLite rolls the whole transaction back on some errors (SQLITE_FULL among them); the ROLLBACK the driver
      // then sends would fail ("no transaction is active") and hide the error (a full disk answered 500, not 507).
      const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      const failed = t.ctx.db.write(async (ex) => {
        await sql`rollback`.execute(ex);
        throw full;
      });
      await expect(failed).rejects.toBe(full);
      // The connection is whole: the next transaction runs.
      expect(
        await t.ctx.db.write(async (ex) => (await sql<{ one: number }>`select 1 as one`.execute(ex)).rows),
      ).toEqual([{ one: 1 }]);
    });
  },
  {},
  { only: 'sqlite' },
);

describeEachDialect(
  'storage full: receipts',
  (t) => {
    it('answers a receipt the store has no room for 507, keeps nothing of it, and takes the same key once there is room', async (context) => {
      if (t.dialect === 'sqlite' && !mounted) context.skip('mounting a small file system needs root (CI has it)');
      const api = await t.ctx.as(RECEIPT_WRITER);
      const record = await api.newRecord();
      const partials = () => {
        const folder = path.join(FULL_DIR, '.partial');
        return fs.existsSync(folder) ? fs.readdirSync(folder) : [];
      };
      let undo: () => Promise<void>;
      if (t.dialect === 'sqlite') {
        // The file system is full: 1.5 MB do not fit in its 1 MiB (the file store writes there, RECEIPTS_DIR).
        expect(t.ctx.config.receipts.dir).toBe(FULL_DIR);
        undo = async () => {
          execFileSync('mount', ['-o', 'remount,size=8m', FULL_DIR]);
        };
      } else {
        undo = await pgDiskFull(t.ctx, 'receipt_contents', api.accountId);
      }
      const key = randomUUID();
      let refused;
      try {
        refused = await uploadRaw(api, record.id, LARGE_PDF, 'application/pdf', { 'idempotency-key': key });
      } finally {
        await undo();
      }
      expectStorageFull(refused);
      // Nothing of the upload stays: no partial file, no bytes, no receipt, no attach, the record unchanged.
      if (t.dialect === 'sqlite') expect(partials()).toEqual([]);
      expect(await storedBlobs(t.ctx, api.accountId)).toEqual([]);
      expect(await storedReceipts(t.ctx, api.accountId)).toEqual([]);
      expect(await storedLinks(t.ctx, api.accountId)).toEqual([]);
      const unchanged = await api.get(`/v3/accounting/records/${record.id}`);
      expect(unchanged.body.version).toBe(record.version);

      // Room made: the same key goes through, and the receipt is stored whole.
      const done = await uploadRaw(api, record.id, LARGE_PDF, 'application/pdf', { 'idempotency-key': key });
      expect(done.status, done.text).toBe(200);
      expect(done.headers['idempotent-replayed']).toBeUndefined();
      expect(await storedBlobs(t.ctx, api.accountId)).toEqual([sha(LARGE_PDF)]);
      expect((await storedReceipts(t.ctx, api.accountId)).map((r) => r.id)).toEqual([done.body.receipt.id]);
      expect(await storedLinks(t.ctx, api.accountId)).toEqual([
        { record_id: record.id, receipt_id: done.body.receipt.id },
      ]);
      if (t.dialect === 'sqlite') expect(partials()).toEqual([]);
    });
  },
  { RECEIPTS_DIR: FULL_DIR },
);
