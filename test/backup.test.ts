import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/open.js';
import { MIGRATIONS, migrateToLatest, runMigrations } from '../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { describeServed, HttpApi } from './support/reliability.js';
import { setupOutage, type Sent } from './support/reliability-outage.js';
import { childEnv, collect, ROOT, svc, tempDir } from './support/processes.js';
import { until } from './support/wait.js';
import { receiptsUrl, samples } from './support/receipts.js';

/** Every value of the field through the API, page by page, as the API writes it. */
async function allValues(api: HttpApi, url: string): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const page = await api.get(url, { limit: '1000', ...(cursor ? { cursor } : {}) });
    expect(page.status).toBe(200);
    for (const item of page.body.items) values.set(item.svc_id, JSON.stringify(item));
    cursor = page.body.next_cursor ?? undefined;
  } while (cursor);
  return values;
}

/** The tables of a database (none when it is empty). */
async function tablesOf(database: TestDatabase): Promise<number> {
  const target = loadConfig({ DATABASE_URL: database.url }).database;
  if (target.dialect === 'sqlite' && !fs.existsSync(target.path)) return 0;
  const db = openDatabase(target, { poolSize: 1 });
  try {
    return (await db.direct.introspection.getTables({ withInternalKyselyTables: true })).length;
  } finally {
    await db.close();
  }
}

describeServed('svc backup and svc restore', (t) => {
  it('restores, into a new database, every write acknowledged before a backup taken under four writers, none in part', async () => {
    const server = await t.served.start();
    const { api, url, write } = await setupOutage(t.served, server.url);
    // A receipt stored by svc (SQLite: a file beside the database; PostgreSQL: bytes in a table) goes along.
    const record = await api.newRecord();
    const png = (await samples()).png.bytes;
    const uploaded = await api.request('POST', receiptsUrl(record.id), {
      raw: png,
      headers: { 'content-type': 'image/png' },
    });
    expect(uploaded.status).toBe(200);
    const dir = tempDir('svc-backup-');
    const out = path.join(dir, 'nightly');
    const sent: Sent[] = [];
    const acknowledgedBefore = new Set<string>();
    let backupStarted = false;
    let backupDone = false;
    let afterBackup = 0;
    const writer = async () => {
      // Writers go on until the backup is done and four more batches were written after it.
      while (!backupDone || afterBackup < 4) {
        const s = await write();
        sent.push(s);
        if (s.res.status === 200 && !backupStarted) acknowledgedBefore.add(s.tag);
        if (backupDone) afterBackup += 1;
      }
    };
    const writers = Promise.all([writer(), writer(), writer(), writer()]);
    while (acknowledgedBefore.size < 8) await new Promise((resolve) => setImmediate(resolve));
    backupStarted = true;
    const backup = await svc(['backup', '--out', out], { DATABASE_URL: t.served.database.url });
    backupDone = true;
    await writers;
    expect([backup.code, backup.stderr.split('\n').slice(1).join('')]).toEqual([0, '']);
    const printed = JSON.parse(backup.stdout);
    expect(printed).toMatchObject({ backup: out, dialect: t.dialect, bytes: expect.any(Number) });
    expect(fs.readdirSync(dir)).toEqual(['nightly']);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest).sort()).toEqual(
      [
        'bytes',
        'created_at',
        'data_file',
        'dialect',
        'format',
        'format_version',
        'migrations',
        'receipts',
        'schema_version',
        'sha256',
        'svc_version',
        'tables',
      ].sort(),
    );
    expect(manifest.schema_version).toBe(manifest.migrations.at(-1));
    expect(manifest.tables.field_values).toBeGreaterThanOrEqual(acknowledgedBefore.size * 5);

    const restored = await createTestDatabase(t.dialect);
    try {
      const restore = await svc(['restore', '--from', out], { DATABASE_URL: restored.url });
      expect(restore.code).toBe(0);
      expect(JSON.parse(restore.stdout)).toEqual({
        restored_from: out,
        schema_version: manifest.schema_version,
        tables: Object.keys(manifest.tables).length,
        rows: Object.values<number>(manifest.tables).reduce((a, b) => a + b, 0),
        migrations_run: [],
      });
      const second = await t.served.start({ DATABASE_URL: restored.url });
      const again = new HttpApi(second.url, api.token, api.accountId, api.clientId);
      const before = await allValues(api, url);
      const after = await allValues(again, url);
      // Byte for byte through the API: every restored value is the one the first database answers.
      for (const [id, text] of after) expect(text).toBe(before.get(id));
      const tags = new Map<string, number>();
      for (const text of after.values()) {
        const tag = String(JSON.parse(text).value);
        tags.set(tag, (tags.get(tag) ?? 0) + 1);
      }
      for (const tag of acknowledgedBefore) expect({ tag, values: tags.get(tag) }).toEqual({ tag, values: 5 });
      for (const [tag, n] of tags) expect({ tag, values: n }).toEqual({ tag, values: 5 });
      expect(after.size).toBe(manifest.tables.field_values);
      // Written after the backup: in the first database, not in the restored one.
      expect(before.size).toBeGreaterThan(after.size);
      // The receipt, through the restored server's own signed link: the same bytes.
      const answered = await again.get(`/v3/accounting/records/${record.id}`);
      const link = new URL(answered.body.receipts[0].download_uris[0]);
      const download = await fetch(new URL(`${link.pathname}${link.search}`, second.url));
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true);
      expect(manifest.receipts ?? 0).toBe(t.dialect === 'sqlite' ? 1 : 0);
      second.child.kill('SIGTERM');
      await second.exited;
    } finally {
      await restored.drop();
    }
  });

  it('refuses a damaged backup, a target that is not empty and a backup folder that exists, and changes nothing', async () => {
    const dir = tempDir('svc-backup-');
    const out = path.join(dir, 'b1');
    const made = await svc(['backup', '--out', out], { DATABASE_URL: t.served.database.url });
    expect(made.code).toBe(0);
    const again = await svc(['backup', '--out', out], { DATABASE_URL: t.served.database.url });
    expect([again.code, again.stdout]).toEqual([1, '']);
    expect(again.stderr).toContain(`${out} already exists`);

    const target = await createTestDatabase(t.dialect);
    try {
      // One byte of the data file changed: refused before anything is written.
      const damaged = path.join(dir, 'damaged');
      fs.cpSync(out, damaged, { recursive: true });
      const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
      const data = path.join(damaged, manifest.data_file);
      const bytes = fs.readFileSync(data);
      const middle = Math.floor(bytes.length / 2);
      bytes[middle] = (bytes[middle] ?? 0) ^ 0xff;
      fs.writeFileSync(data, bytes);
      const refused = await svc(['restore', '--from', damaged], { DATABASE_URL: target.url });
      expect([refused.code, refused.stdout]).toEqual([1, '']);
      expect(refused.stderr).toContain(`SHA-256`);
      expect(refused.stderr).toContain('the backup is damaged');
      expect(await tablesOf(target)).toBe(0);

      // A manifest that is not one, and a folder that is no backup.
      fs.writeFileSync(path.join(damaged, 'manifest.json'), '{"format":"svc-backup","format_version":2}');
      const bad = await svc(['restore', '--from', damaged], { DATABASE_URL: target.url });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('manifest.json is damaged');
      const none = await svc(['restore', '--from', dir], { DATABASE_URL: target.url });
      expect(none.stderr).toContain('is not a svc backup: it has no manifest.json');
      expect(await tablesOf(target)).toBe(0);

      // Into a database that holds tables: refused, the database untouched.
      const full = await svc(['restore', '--from', out], { DATABASE_URL: t.served.database.url });
      expect(full.code).toBe(1);
      expect(full.stderr).toContain('is not empty');
      expect(full.stderr).toContain('a restore writes only into an empty database');

      // The good backup restores.
      const ok = await svc(['restore', '--from', out], { DATABASE_URL: target.url });
      expect(ok.code).toBe(0);
      expect(await tablesOf(target)).toBe(Object.keys(manifest.tables).length);
    } finally {
      await target.drop();
    }
  });

  it('restores a backup made before the latest migrations and runs them', async () => {
    // A database at an earlier schema: every migration but the last two.
    const old = await createTestDatabase(t.dialect);
    const target = await createTestDatabase(t.dialect);
    try {
      const db = openDatabase(loadConfig({ DATABASE_URL: old.url }).database, { poolSize: 1 });
      const names = Object.keys(MIGRATIONS);
      await runMigrations(db, (migrator) => migrator.migrateTo(names.at(-3)!));
      await db.close();
      const out = path.join(tempDir('svc-backup-'), 'old');
      expect((await svc(['backup', '--out', out], { DATABASE_URL: old.url })).code).toBe(0);
      const restore = await svc(['restore', '--from', out], { DATABASE_URL: target.url });
      expect(restore.code).toBe(0);
      expect(JSON.parse(restore.stdout)).toMatchObject({
        schema_version: names.at(-3),
        migrations_run: names.slice(-2),
      });
      const check = openDatabase(loadConfig({ DATABASE_URL: target.url }).database, { poolSize: 1 });
      expect(await migrateToLatest(check)).toEqual([]);
      await check.close();
    } finally {
      await old.drop();
      await target.drop();
    }
  });

  it('leaves no backup that looks complete when the backup process is killed mid-way; the next one clears it', async () => {
    const source = await createTestDatabase(t.dialect);
    const target = loadConfig({ DATABASE_URL: source.url }).database;
    const db = openDatabase(target, { poolSize: 1 });
    await migrateToLatest(db);
    await db.close();
    const dir = tempDir('svc-backup-');
    const out = path.join(dir, 'cut');
    // The backup is held mid-way, its temporary folder made, by a lock on the database that it waits for.
    const release = await holdLock(source.url);
    try {
      const child = spawn(process.execPath, [path.join(ROOT, 'bin/svc.js'), 'backup', '--out', out], {
        env: childEnv({ DATABASE_URL: source.url }),
      });
      const exited = collect(child);
      await until(
        "the backup's temporary folder",
        () => fs.readdirSync(dir).some((name) => name.startsWith('cut.partial-')),
        { everyMs: 5 },
      );
      child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
    } finally {
      await release();
    }
    const [partial] = fs.readdirSync(dir);
    expect(partial).toMatch(/^cut\.partial-\d+-[0-9a-f]{8}$/);
    expect(fs.existsSync(out)).toBe(false);
    const refused = await svc(['restore', '--from', path.join(dir, partial!)], { DATABASE_URL: source.url });
    expect(refused.stderr).toContain('is not a svc backup: it has no manifest.json');
    const next = await svc(['backup', '--out', out], { DATABASE_URL: source.url });
    expect(next.code).toBe(0);
    expect(fs.readdirSync(dir)).toEqual(['cut']);
    await source.drop();
  });
});

/**
 * A lock that a backup waits for: SQLite, the file held in exclusive locking mode by a connection of the test's own;
 * PostgreSQL, an ACCESS EXCLUSIVE lock on a table inside an open transaction. Returns its release.
 */
async function holdLock(url: string): Promise<() => Promise<void>> {
  const target = loadConfig({ DATABASE_URL: url }).database;
  if (target.dialect === 'sqlite') {
    const locker = new SqliteDatabase(target.path);
    locker.pragma('locking_mode = EXCLUSIVE');
    locker.exec('begin exclusive');
    locker.prepare('select count(*) from kysely_migration').get();
    return async () => {
      locker.exec('rollback');
      locker.close();
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('begin');
  await client.query('lock table kysely_migration in access exclusive mode');
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}
