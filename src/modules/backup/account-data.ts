import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Executor } from '../../db/database.js';
import { auditService, operatorSource } from '../audit/audit.service.js';
import { quote, referencedFirst, rowsOf, tablesOf, type Table } from './backup.copy.js';
import { BackupError, sha256Of } from './backup.manifest.js';
import type { StoredReceipt } from './backup.receipts.js';
import type { ReceiptStore } from '../receipts/receipts.service.js';
import { pipeline } from 'node:stream/promises';

/**
 * Rows that are not the account's data but credentials and short-lived state (tokens, sessions, codes, links,
 * throttles, idempotency keys): left out of an export. A deletion removes them with the rest.
 */
const NOT_EXPORTED = new Set([
  'access_tokens',
  'refresh_tokens',
  'oauth_codes',
  'user_sessions',
  'user_password_links',
  'sign_in_throttles',
  'idempotency_keys',
  // A receipt's bytes are written as files of their own (receipts/<sha256>), not as JSON.
  'receipt_contents',
]);
/**
 * Secrets and their hashes are never written out: the column stays, its value reads "[redacted]". A column is one
 * when its name says so (a secret, a password, a hash; not the time one expires), or it is a key named here: the
 * account's cursor key seals its cursors, and whoever holds it could forge one.
 */
const SECRET_KEYS = new Set(['cursor_key']);
const isSecret = (column: string) =>
  SECRET_KEYS.has(column) || (/(secret|password|_hash)/.test(column) && !column.endsWith('_at'));
/** Kept when an account is deleted: what was done to it, and by whom, including the deletion itself. */
const KEPT = new Set(['audit_events']);

async function accountTables(ex: Executor): Promise<Table[]> {
  return (await tablesOf(ex)).filter((t) => t.columns.includes('account_id'));
}

async function exists(ex: Executor, accountId: string): Promise<boolean> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from accounts where account_id = ${accountId}`.execute(ex);
  return Number(rows[0]!.n) > 0;
}

export interface AccountExport {
  account_id: string;
  exported_at: string;
  svc_version: string;
  /** Per table: its file, its rows and the file's SHA-256. */
  tables: Record<string, { file: string; rows: number; sha256: string }>;
  /** Receipts' bytes written under receipts/, each named by its SHA-256. */
  receipts: number;
}

/**
 * Everything of one account, from one snapshot, as JSON lines per table (one object per stored row, columns as
 * stored), under a temporary name then renamed to `out`, with a manifest of rows and checksums. Credentials and
 * short-lived state are left out, secrets redacted.
 */
export async function exportAccount(
  db: Db,
  accountId: string,
  out: string,
  meta: { svcVersion: string; now: Date; receipts: ReceiptStore },
): Promise<AccountExport> {
  const destination = path.resolve(out);
  if (fs.existsSync(destination)) throw new BackupError(`${destination} already exists: an export never overwrites`);
  const work = `${destination}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(work);
  try {
    const manifest: AccountExport = {
      account_id: accountId,
      exported_at: meta.now.toISOString(),
      svc_version: meta.svcVersion,
      tables: {},
      receipts: 0,
    };
    await db.read(async (ex) => {
      if (!(await exists(ex, accountId))) throw new BackupError(`no account ${accountId}`);
      for (const table of await accountTables(ex)) {
        if (NOT_EXPORTED.has(table.name)) continue;
        const file = `${table.name}.jsonl`;
        const fd = fs.openSync(path.join(work, file), 'wx');
        let rows = 0;
        try {
          for await (const page of rowsOf(ex, table, accountId)) {
            const lines = page.map((row) => {
              const shown = Object.fromEntries(
                Object.entries(row).map(([k, v]) => [k, isSecret(k) && v !== null ? '[redacted]' : v]),
              );
              return `${JSON.stringify(shown)}\n`;
            });
            fs.writeSync(fd, lines.join(''));
            rows += page.length;
          }
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
        manifest.tables[table.name] = { file, rows, sha256: await sha256Of(path.join(work, file)) };
      }
      const receipts = await sql<StoredReceipt>`
        select account_id, sha256 from receipts where account_id = ${accountId} order by sha256`.execute(ex);
      if (receipts.rows.length > 0) {
        fs.mkdirSync(path.join(work, 'receipts'));
        for (const r of receipts.rows) {
          const stream = await meta.receipts.read(ex, accountId, r.sha256);
          if (stream === null) throw new BackupError(`receipt ${r.sha256}: its bytes are missing`);
          await pipeline(stream, fs.createWriteStream(path.join(work, 'receipts', r.sha256), { flags: 'wx' }));
        }
      }
      manifest.receipts = receipts.rows.length;
    });
    fs.writeFileSync(path.join(work, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
    fs.renameSync(work, destination);
    return manifest;
  } catch (error) {
    fs.rmSync(work, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Deletes the account and every row of it, in one transaction (all or nothing), rows that reference others first;
 * its audit log stays, with an `account.deleted` entry naming the rows deleted per table. Returns those counts.
 */
export async function deleteAccount(db: Db, accountId: string): Promise<Record<string, number>> {
  return db.write(async (ex) => {
    if (!(await exists(ex, accountId))) throw new BackupError(`no account ${accountId}`);
    const deleted: Record<string, number> = {};
    for (const table of referencedFirst(await accountTables(ex)).reverse()) {
      if (KEPT.has(table.name)) continue;
      const result = await sql`delete from ${sql.raw(quote(table.name))} where account_id = ${accountId}`.execute(ex);
      deleted[table.name] = Number(result.numAffectedRows ?? 0);
    }
    await auditService.record(
      ex,
      operatorSource(accountId),
      'account.deleted',
      { type: 'account', id: accountId },
      {
        rows_deleted: deleted,
      },
    );
    return deleted;
  });
}
