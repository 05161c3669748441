import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { nowMicros } from '../lib/clock.js';
import { copyDatabase } from '../modules/backup/backup.copy.js';
import { deleteAccount, exportAccount } from '../modules/backup/account-data.js';
import { openDatabase } from '../db/open.js';
import { receiptStore } from '../modules/receipts/receipts.service.js';
import { parseAccount } from './usage.js';
import { folderMustExist, restoreBackup, takeBackup } from '../modules/backup/backup.service.js';
import { describeDatabase } from './database-name.js';
import { CliUsageError } from './usage.js';

type Out = (line: string) => void;

/** `svc backup --out DIR`: a consistent backup of the database DATABASE_URL names, while the service runs. */
export async function backup(args: string[], out: Out, svcVersion: string): Promise<void> {
  const { values } = parseArgs({ args, options: { out: { type: 'string' } }, strict: true });
  if (values.out === undefined || values.out === '')
    throw new CliUsageError('--out is required: the backup directory to create');
  const config = loadConfig(process.env);
  process.stderr.write(`svc: database ${describeDatabase(config.database)}\n`);
  const manifest = await takeBackup({ ...config.database, receiptsDir: config.receipts.dir }, values.out, {
    svcVersion,
    now: new Date(nowMicros() / 1000),
    env: process.env,
    // The CLI's own process: a memory-mapped read's I/O error ends only this command.
    memoryMap: true,
  });
  out(
    JSON.stringify({
      backup: values.out,
      dialect: manifest.dialect,
      schema_version: manifest.schema_version,
      bytes: manifest.bytes,
      sha256: manifest.sha256,
      tables: manifest.tables,
    }),
  );
}

/** `svc restore --from DIR`: the backup into the empty database DATABASE_URL names, then pending migrations. */
export async function restore(args: string[], out: Out): Promise<void> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' } }, strict: true });
  if (values.from === undefined || values.from === '')
    throw new CliUsageError('--from is required: the backup directory');
  const config = loadConfig(process.env);
  process.stderr.write(`svc: database ${describeDatabase(config.database)}\n`);
  out(
    JSON.stringify(
      await restoreBackup({ ...config.database, receiptsDir: config.receipts.dir }, values.from, process.env),
    ),
  );
}

/** `svc copy --from URL --to URL`: a whole svc database into an empty one, of either dialect. */
export async function copy(args: string[], out: Out): Promise<void> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' } }, strict: true });
  if (!values.from || !values.to) throw new CliUsageError('--from and --to are required: two database URLs');
  const fromConfig = loadConfig({ DATABASE_URL: values.from });
  const toConfig = loadConfig({ DATABASE_URL: values.to });
  // Receipt files (SQLite) in the folder beside each database file, as a server on it finds them by default.
  const from = { ...fromConfig.database, receiptsDir: fromConfig.receipts.dir };
  const to = { ...toConfig.database, receiptsDir: toConfig.receipts.dir };
  const names = { from: describeDatabase(fromConfig.database), to: describeDatabase(toConfig.database) };
  if (names.from === names.to) throw new CliUsageError('--from and --to name the same database');
  process.stderr.write(`svc: copying ${names.from} into ${names.to}\n`);
  out(JSON.stringify(await copyDatabase(from, to, names)));
}

/**
 * `svc account export --account A --out DIR`: everything of one account as JSON lines per table.
 * `svc account delete --account A --confirm A`: the account and all its data, gone; its audit log stays.
 */
export async function account(args: string[], out: Out, svcVersion: string): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { account: { type: 'string' }, out: { type: 'string' }, confirm: { type: 'string' } },
    strict: true,
  });
  const accountId = parseAccount(values.account);
  if (sub === 'export') {
    if (!values.out) throw new CliUsageError('--out is required: the folder to create');
  } else if (sub === 'delete') {
    if (values.confirm !== accountId)
      throw new CliUsageError(`--confirm ${accountId} is required: deleting an account cannot be undone`);
  } else throw new CliUsageError(`unknown command: account ${sub ?? ''}`.trim());
  const config = loadConfig(process.env);
  process.stderr.write(`svc: database ${describeDatabase(config.database)}\n`);
  // Both refused before the database is opened, so that a mistyped path makes nothing (exportAccount would find the
  // missing folder only when it makes its temporary one there, and say it as ENOENT).
  if (sub === 'export') folderMustExist(values.out!);
  const db = openDatabase(config.database, { poolSize: 2, existing: true });
  try {
    if (sub === 'export') {
      const exported = await exportAccount(db, accountId, values.out!, {
        svcVersion,
        now: new Date(nowMicros() / 1000),
        receipts: receiptStore(config.receipts.dir),
      });
      out(
        JSON.stringify({
          account_id: accountId,
          out: values.out,
          tables: exported.tables,
          receipts: exported.receipts,
        }),
      );
    } else {
      out(JSON.stringify({ account_id: accountId, deleted: true, rows_deleted: await deleteAccount(db, accountId) }));
    }
  } finally {
    await db.close();
  }
}
