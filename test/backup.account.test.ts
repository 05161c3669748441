import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';
import { authService } from '../src/modules/auth/auth.service.js';
import { tablesOf } from '../src/modules/backup/backup.copy.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { eachDialect } from './support/dialects.js';
import { svc, tempDir } from './support/processes.js';

/** Rows of `accountId` in every table that has an account_id column. */
async function rowsOf(db: Db, accountId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await tablesOf(db.direct)) {
    if (!table.columns.includes('account_id')) continue;
    const { rows } = await sql<{ n: number | string }>`
      select count(*) as n from ${sql.table(table.name)} where account_id = ${accountId}`.execute(db.direct);
    counts[table.name] = Number(rows[0]!.n);
  }
  return counts;
}

eachDialect('svc account export and delete', (dialect) => {
  it('exports every row of one account, deletes them all but its audit log, and leaves the other account as it was', async () => {
    const database: TestDatabase = await createTestDatabase(dialect);
    const db = openDatabase(loadConfig({ DATABASE_URL: database.url }).database, { poolSize: 2 });
    try {
      await migrateToLatest(db);
      const env = { DATABASE_URL: database.url };
      const [gone, kept] = [`gone_${Date.now().toString(36)}`, `kept_${Date.now().toString(36)}`];
      for (const account of [gone, kept])
        expect((await svc(['seed', '--account', account, '--records', '20', '--values', '10'], env)).code).toBe(0);
      const client = await authService.createClient(db, gone, ['fields.read']);
      const cursorKey = (
        await sql<{ cursor_key: string }>`
        select cursor_key from accounts where account_id = ${gone}`.execute(db.direct)
      ).rows[0]!.cursor_key;
      const before = await rowsOf(db, gone);
      const keptBefore = await rowsOf(db, kept);
      expect(before.accounting_records).toBe(20);

      const out = path.join(tempDir('svc-account-'), 'export');
      const exported = await svc(['account', 'export', '--account', gone, '--out', out], env);
      expect(exported.code).toBe(0);
      const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
      expect(manifest.account_id).toBe(gone);
      for (const [table, n] of Object.entries(before)) {
        if (
          [
            'access_tokens',
            'refresh_tokens',
            'oauth_codes',
            'user_sessions',
            'user_password_links',
            'sign_in_throttles',
            'idempotency_keys',
            'receipt_contents',
          ].includes(table)
        ) {
          expect(manifest.tables[table]).toBeUndefined();
          continue;
        }
        expect({ table, rows: manifest.tables[table]?.rows }).toEqual({ table, rows: n });
        const lines = fs
          .readFileSync(path.join(out, `${table}.jsonl`), 'utf8')
          .split('\n')
          .filter(Boolean);
        expect(lines).toHaveLength(n);
        for (const line of lines) expect(JSON.parse(line).account_id).toBe(gone);
      }
      const clients = fs.readFileSync(path.join(out, 'oauth_clients.jsonl'), 'utf8');
      expect(JSON.parse(clients.trim()).secret_hash).toBe('[redacted]');
      expect(clients).not.toContain(client.client_secret);
      // The key that seals the account's cursors is a secret too: whoever holds it could forge a cursor.
      const accounts = fs.readFileSync(path.join(out, 'accounts.jsonl'), 'utf8');
      expect(JSON.parse(accounts.trim())).toMatchObject({ account_id: gone, cursor_key: '[redacted]' });
      for (const file of fs.readdirSync(out).filter((f) => f.endsWith('.jsonl')))
        expect({ file, leaked: fs.readFileSync(path.join(out, file), 'utf8').includes(cursorKey) }).toEqual({
          file,
          leaked: false,
        });

      // Without the confirmation, or with another account's id: refused, nothing deleted.
      for (const confirm of [[], ['--confirm', kept]]) {
        const refused = await svc(['account', 'delete', '--account', gone, ...confirm], env);
        expect([refused.code, refused.stdout]).toEqual([2, '']);
        expect(refused.stderr).toContain(`--confirm ${gone} is required`);
      }
      expect(await rowsOf(db, gone)).toEqual(before);

      const deleted = await svc(['account', 'delete', '--account', gone, '--confirm', gone], env);
      expect(deleted.code).toBe(0);
      const answer = JSON.parse(deleted.stdout);
      expect(answer).toMatchObject({ account_id: gone, deleted: true });
      const after = await rowsOf(db, gone);
      for (const [table, n] of Object.entries(after))
        expect({ table, rows: n }).toEqual({ table, rows: table === 'audit_events' ? before.audit_events! + 1 : 0 });
      const audit = await sql<{ action: string; details: string }>`
        select action, details from audit_events where account_id = ${gone} and action = 'account.deleted'`.execute(
        db.direct,
      );
      expect(audit.rows).toHaveLength(1);
      expect(JSON.parse(audit.rows[0]!.details).rows_deleted.accounting_records).toBe(20);
      expect(await rowsOf(db, kept)).toEqual(keptBefore);

      const again = await svc(['account', 'delete', '--account', gone, '--confirm', gone], env);
      expect([again.code, again.stderr]).toEqual([1, expect.stringContaining(`no account ${gone}`)]);

      // The deleted account's id is not given to a new account: it would read the audit log kept under it.
      const deletedRows = await rowsOf(db, gone);
      for (const argv of [
        ['clients', 'create', '--account', gone, '--scopes', 'audit.read'],
        ['users', 'create', '--account', gone, '--email', 'new-owner@example.com', '--role', 'ACCOUNT_ADMIN'],
        ['seed', '--account', gone, '--records', '1', '--values', '1'],
      ]) {
        const refused = await svc(argv, env);
        // `svc users` answers every refusal of the users service as its other refusals (an email taken): exit 2.
        expect([argv[0], refused.code, refused.stdout]).toEqual([argv[0], argv[0] === 'users' ? 2 : 1, '']);
        expect(refused.stderr).toContain(`Account ${gone} was deleted`);
        expect(await rowsOf(db, gone)).toEqual(deletedRows);
      }
    } finally {
      await db.close();
      await database.drop();
    }
  });
});
