import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { describeServed } from '../support/reliability.js';
import { newJpeg, receiptsUrl, RECEIPT_WRITER } from '../support/receipts.js';
import { until } from '../support/wait.js';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The account's record clock held by the test (SQLite: the database's write lock; PostgreSQL: the clock row), so
 * that an upload stops inside its work: its bytes written (the file in place, or the row of bytes inserted) and
 * its transaction not committed. The server is killed there.
 */
async function holdClock(url: string, accountId: string): Promise<{ release(): Promise<void> }> {
  const target = loadConfig({ DATABASE_URL: url }).database;
  if (target.dialect === 'sqlite') {
    const held = new SqliteDatabase(target.path);
    held.exec('begin immediate');
    return {
      async release() {
        held.exec('rollback');
        held.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  await client.query('begin');
  await client.query('select 1 from account_record_clocks where account_id = $1 for update', [accountId]);
  return {
    async release() {
      await client.query('rollback');
      await client.end();
    },
  };
}

describeServed('SIGKILL during a receipt upload', (t) => {
  it('leaves no partial receipt visible and no orphaned file after restart, and loses no acknowledged receipt', async () => {
    const served = t.served;
    const config = loadConfig({ DATABASE_URL: served.database.url });
    let server = await served.start();
    const api = await served.client(server.url, RECEIPT_WRITER);
    const record = await api.newRecord();
    const kept = await newJpeg();
    const first = await api.request('POST', receiptsUrl(record.id), {
      raw: kept,
      headers: { 'content-type': 'image/jpeg' },
    });
    expect(first.status, first.text).toBe(200);

    const held = await holdClock(served.database.url, api.accountId);
    const lost = await newJpeg();
    const upload = api
      .request('POST', receiptsUrl(record.id), { raw: lost, headers: { 'content-type': 'image/jpeg' } })
      .catch(() => null);
    const fileOf = (bytes: Buffer) =>
      path.join(
        config.receipts.dir ?? '',
        Buffer.from(api.accountId).toString('base64url'),
        sha(bytes).slice(0, 2),
        sha(bytes),
      );
    if (t.dialect === 'sqlite') {
      // The file is in place before the transaction, which waits for the write lock.
      await until('the upload has written its file', () => fs.existsSync(fileOf(lost)));
    } else {
      // The transaction has written the bytes and waits for the clock row.
      await until('the upload waits for the record clock', async () => {
        const { rows } = await sql<{ n: string }>`
          select count(*) as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(served.db.direct);
        return Number(rows[0]?.n) > 0;
      });
    }
    server.child.kill('SIGKILL');
    await server.exited;
    await held.release();
    expect(await upload).toBeNull();

    server = await served.start();
    api.base = server.url;
    const rows = await served.db.direct
      .selectFrom('receipts')
      .select(['sha256'])
      .where('account_id', '=', api.accountId)
      .execute();
    expect(rows.map((r) => r.sha256)).toEqual([sha(kept)]);
    if (t.dialect === 'sqlite') {
      expect(fs.existsSync(fileOf(lost))).toBe(false);
      expect(fs.existsSync(fileOf(kept))).toBe(true);
      expect(fs.readdirSync(path.join(config.receipts.dir!, '.partial'))).toEqual([]);
    } else {
      const contents = await served.db.direct.selectFrom('receipt_contents').select('sha256').execute();
      expect(contents.map((c) => c.sha256)).toEqual([sha(kept)]);
    }
    const now = await api.request('GET', `/v3/accounting/records/${record.id}`, { headers: {} });
    expect(now.body.version).toBe(first.body.record.version);
    expect(now.body.receipts.map((r: any) => r.id)).toEqual([first.body.receipt.id]);
    const link = new URL(now.body.receipts[0].download_uris[0]);
    const got = await fetch(new URL(`${link.pathname}${link.search}`, server.url));
    expect(got.status).toBe(200);
    expect(sha(Buffer.from(await got.arrayBuffer()))).toBe(sha(kept));
  });
});
