import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { contents } from './support/database-contents.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { eachDialect } from './support/dialects.js';
import { svc } from './support/processes.js';

const RECORDS = 20;

/** A copy of the backup in `from`, its manifest changed by `edit` (which may change the data file too). */
function alteredCopy(from: string, edit: (manifest: any, dataFile: string) => void): string {
  const to = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-restore-checks-'));
  fs.cpSync(from, to, { recursive: true });
  const file = path.join(to, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  edit(manifest, path.join(to, manifest.data_file));
  fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
  return to;
}

/** What a restore left in `target`: every table, each with its rows (none at all when it is empty). */
async function left(target: TestDatabase): Promise<unknown> {
  const file = target.url.startsWith('sqlite:') ? target.url.slice('sqlite:'.length) : null;
  if (file !== null && !fs.existsSync(file)) return 'no file';
  try {
    return await contents(target.url);
  } catch (error) {
    return `unreadable: ${String(error)}`;
  }
}

/**
 * A backup whose manifest's checksum matches its data file, but whose data is not what the manifest says (edited
 * by hand, or a fault that fails the restore half-way): refused with its reason, and the target left as it was, so
 * that the next restore into it works. On PostgreSQL the counts are compared in the restore's transaction
 * (backup.postgres.ts, restorePostgres); before, pg_restore committed first and the refusal left every table.
 */
eachDialect('svc restore: a backup that is not what its manifest says', (dialect) => {
  let source: TestDatabase;
  let backup: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    source = await createTestDatabase(dialect);
    const seeded = await svc(['seed', '--account', 'restore_checks', '--records', String(RECORDS), '--values', '10'], {
      DATABASE_URL: source.url,
    });
    expect([seeded.code, seeded.stderr]).toEqual([0, expect.any(String)]);
    backup = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-restore-checks-')), 'backup');
    dirs.push(path.dirname(backup));
    const made = await svc(['backup', '--out', backup], { DATABASE_URL: source.url });
    expect([made.code, made.stderr.split('\n').slice(1).join('')]).toEqual([0, '']);
  });

  afterAll(async () => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    await source?.drop();
  });

  /** Restores `from` into a new database: refused with `reason`, nothing left; then the good backup restores there. */
  async function refusedThenRestored(from: string, reason: RegExp): Promise<void> {
    const target = await createTestDatabase(dialect);
    try {
      const before = await left(target);
      const refused = await svc(['restore', '--from', from], { DATABASE_URL: target.url });
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([1, '', expect.stringMatching(reason)]);
      expect(await left(target)).toEqual(before);
      const restored = await svc(['restore', '--from', backup], { DATABASE_URL: target.url });
      expect([restored.code, restored.stderr.split('\n').slice(1).join('')]).toEqual([0, '']);
      expect(await contents(target.url)).toEqual(await contents(source.url));
    } finally {
      await target.drop();
    }
  }

  it('counts its data file does not hold, the checksum intact: refused, naming the table; nothing restored', async () => {
    const edited = alteredCopy(backup, (manifest) => {
      expect(manifest.tables.accounting_records).toBe(RECORDS);
      manifest.tables.accounting_records = RECORDS + 1;
    });
    dirs.push(edited);
    await refusedThenRestored(
      edited,
      new RegExp(`does not hold what its manifest says.*accounting_records: ${RECORDS + 1} in the backup, ${RECORDS} `),
    );
  });

  it('a data file damaged past its start, the manifest rewritten to match it: refused; nothing restored', async () => {
    const damaged = alteredCopy(backup, (manifest, dataFile) => {
      const bytes = fs.readFileSync(dataFile);
      // Past the schema, in the rows: a restore gets part of the way before it meets the damage.
      for (let i = Math.floor(bytes.length * 0.6); i < Math.floor(bytes.length * 0.6) + 64; i++) bytes[i] = 0x5a;
      fs.writeFileSync(dataFile, bytes);
      manifest.sha256 = createHash('sha256').update(bytes).digest('hex');
    });
    dirs.push(damaged);
    // SQLite: its quick_check of the data file, before anything is written. PostgreSQL: whichever meets the damage
    // first ends the restore before its commit: pg_restore (here it dies of SIGSEGV), and psql's transaction is ended
    // without a commit; or psql, on the damaged SQL pg_restore wrote before it died (a syntax error), and pg_restore
    // is stopped. Which one comes first is a race between the two processes (a loaded machine saw psql's).
    await refusedThenRestored(
      damaged,
      dialect === 'sqlite'
        ? /(fails SQLite's check|is not a sound SQLite database).*: the backup is damaged/
        : /the restore failed, nothing was restored: (pg_restore|psql:<stdin>:\d+: ERROR)/,
    );
  });

  // SQLite reads the data file three ways at once: its checksum, its check and its copy beside the target
  // (backup.sqlite.ts, restoreSqlite). A refusal found after the copy has started leaves neither the copy nor a
  // folder made for it.
  it.runIf(dialect === 'sqlite')(
    'a refusal leaves no copy beside the target and no folder it made for one; the good backup then restores there',
    async () => {
      const edited = alteredCopy(backup, (manifest) => {
        manifest.tables.accounting_records = RECORDS + 1;
      });
      const damaged = alteredCopy(backup, (manifest, dataFile) => {
        const bytes = fs.readFileSync(dataFile);
        const middle = Math.floor(bytes.length / 2);
        bytes[middle] = (bytes[middle] ?? 0) ^ 0xff;
        fs.writeFileSync(dataFile, bytes);
      });
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-restore-checks-'));
      dirs.push(edited, damaged, root);
      const nested = path.join(root, 'new', 'deeper', 'svc.db');
      for (const [from, reason] of [
        [edited, /does not hold what its manifest says/],
        [damaged, /SHA-256 is [0-9a-f]{64}, the manifest says [0-9a-f]{64}: the backup is damaged/],
      ] as const) {
        const refused = await svc(['restore', '--from', from], { DATABASE_URL: `sqlite:${nested}` });
        expect([refused.code, refused.stdout, refused.stderr]).toEqual([1, '', expect.stringMatching(reason)]);
        expect(fs.readdirSync(root)).toEqual([]);
      }
      fs.mkdirSync(path.dirname(nested), { recursive: true });
      const refused = await svc(['restore', '--from', edited], { DATABASE_URL: `sqlite:${nested}` });
      expect(refused.code).toBe(1);
      expect(fs.readdirSync(path.dirname(nested))).toEqual([]);
      const restored = await svc(['restore', '--from', backup], { DATABASE_URL: `sqlite:${nested}` });
      expect([restored.code, restored.stderr.split('\n').slice(1).join('')]).toEqual([0, '']);
      expect(fs.readdirSync(path.dirname(nested))).toEqual(['svc.db']);
      expect(await contents(`sqlite:${nested}`)).toEqual(await contents(source.url));
    },
  );
});
