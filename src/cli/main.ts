import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { Db } from '../db/database.js';
import { errorCode } from '../db/failures.js';
import { openDatabase } from '../db/open.js';
import { migrateToLatest } from '../db/migrate.js';
import { isAppError } from '../errors.js';
import { authService, DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS } from '../modules/auth/auth.service.js';
import { clientScopesService } from '../modules/auth/client-scopes.service.js';
import { seed } from './seed.js';
import { CliUsageError, parseAccount, parseClientName, parseScopeList } from './usage.js';
import { helpFor, helpPointer, unknownCommand, USAGE } from './help.js';
import { users } from './users.js';
import { vendors } from './vendors.js';
import { apps } from './apps.js';
import { webhooks } from './webhooks.js';
import { rules } from './rules.js';
import { esmImport } from '../lib/esm-import.js';
import { packageVersion } from '../lib/version.js';
import { account, backup, copy, restore } from './backup.js';
import { describeDatabase } from './database-name.js';
import { migrate } from './migrate.js';

type Out = (line: string) => void;

/**
 * `svc poll` / `svc report` / `svc export` are the reference integration, built on the SDK alone (client/); loaded from the
 * client's own build so that the server never depends on it.
 */
interface Integration {
  runPoll(args: string[]): Promise<void>;
  runReceipts(args: string[], out: Out): Promise<void>;
  runReport(args: string[], out: Out): Promise<boolean>;
  runExport(args: string[], out: Out): Promise<boolean>;
}
const isIntegration = (value: unknown): value is Integration =>
  typeof value === 'object' &&
  value !== null &&
  'runPoll' in value &&
  'runReceipts' in value &&
  'runReport' in value &&
  'runExport' in value &&
  typeof value.runPoll === 'function' &&
  typeof value.runReceipts === 'function' &&
  typeof value.runReport === 'function' &&
  typeof value.runExport === 'function';

async function integration(): Promise<Integration> {
  const compiled = new URL('../../client/dist/integration/cli.js', import.meta.url);
  const loaded = await esmImport(compiled.href);
  if (!isIntegration(loaded)) throw new Error(`${compiled.pathname} is not the SDK's reference integration`);
  return loaded;
}

function openFromEnv(poolSize: number, existing = false): { db: Db; config: Config } {
  const config = loadConfig(process.env);
  process.stderr.write(`svc: database ${describeDatabase(config.database)}\n`);
  return { config, db: openDatabase(config.database, { poolSize, existing }) };
}

type WithDb = <T>(work: (db: Db, config: Config) => Promise<T>) => Promise<T>;

/**
 * The commands that may be the first of a new install (they make what an account starts from, as `svc migrate` and
 * the server's first start make the database): a SQLite file that is not there is made for them. Every other command
 * lists or changes what is there, so a file that is not there (a mistyped path) is refused (databaseMustExist) instead
 * of made, empty, with its folders.
 */
const FIRST_START = new Set([
  'clients create',
  'users create',
  'vendors create',
  'apps create',
  'rules create',
  'seed',
]);

/** The database of DATABASE_URL, migrated, for `command` (its words: "clients list"). */
function withDbFor(command: string): WithDb {
  return async (work) => {
    const { db, config } = openFromEnv(2, !FIRST_START.has(command));
    try {
      await migrateToLatest(db);
      return await work(db, config);
    } finally {
      await db.close();
    }
  };
}

async function clients(args: string[], out: Out, withDb: WithDb): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { account: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' } },
      strict: true,
    });
    const account = parseAccount(values.account);
    if (values.scopes === undefined) throw new CliUsageError('--scopes is required');
    const scopes = parseScopeList(values.scopes);
    const name = parseClientName(values.name);
    const creds = await withDb((db) => authService.createClient(db, account, scopes, undefined, name));
    out(JSON.stringify(creds));
    return;
  }
  if (sub === 'list') {
    const { values } = parseArgs({ args: rest, options: { account: { type: 'string' } }, strict: true });
    const clients = await withDb((db) => authService.listClients(db, values.account ?? null));
    for (const client of clients) out(JSON.stringify(client));
    return;
  }
  if (sub === 'revoke') {
    const { positionals } = parseArgs({ args: rest, allowPositionals: true, strict: true });
    if (positionals.length !== 1) throw new CliUsageError('give exactly one client_id');
    const clientId = positionals[0]!;
    try {
      await withDb((db) => authService.revokeClient(db, clientId));
    } catch (error) {
      if (isAppError(error) && error.code === 'NOT_FOUND') throw new CliUsageError(`no active client ${clientId}`);
      throw error;
    }
    out(JSON.stringify({ client_id: clientId, revoked: true }));
    return;
  }
  if (sub === 'rotate-secret') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { 'overlap-seconds': { type: 'string', default: String(DEFAULT_OVERLAP_SECONDS) } },
      strict: true,
    });
    if (positionals.length !== 1) throw new CliUsageError('give exactly one client_id');
    const clientId = positionals[0]!;
    const overlap = Number(values['overlap-seconds']);
    try {
      const rotated = await withDb((db) => db.write((ex) => authService.rotateSecret(ex, clientId, overlap)));
      out(JSON.stringify(rotated));
    } catch (error) {
      if (isAppError(error) && error.code === 'NOT_FOUND') throw new CliUsageError(`no active client ${clientId}`);
      if (isAppError(error) && error.status === 400) {
        throw new CliUsageError(`--overlap-seconds: a whole number from 0 to ${MAX_OVERLAP_SECONDS}`);
      }
      throw error;
    }
    return;
  }
  if (sub === 'scopes') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { scopes: { type: 'string' } },
      strict: true,
    });
    if (positionals.length !== 1) throw new CliUsageError('give exactly one client_id');
    if (values.scopes === undefined) throw new CliUsageError('--scopes is required');
    const clientId = positionals[0]!;
    const scopes = parseScopeList(values.scopes);
    try {
      const changed = await withDb((db) => db.write((ex) => clientScopesService.change(ex, clientId, scopes)));
      out(JSON.stringify(changed));
    } catch (error) {
      if (isAppError(error) && error.code === 'NOT_FOUND') throw new CliUsageError(`no active client ${clientId}`);
      throw error;
    }
    return;
  }
  if (sub === 'rename') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { name: { type: 'string' } },
      strict: true,
    });
    if (positionals.length !== 1) throw new CliUsageError('give exactly one client_id');
    if (values.name === undefined) throw new CliUsageError('--name is required');
    const clientId = positionals[0]!;
    const name = parseClientName(values.name);
    try {
      const changed = await withDb((db) => db.write((ex) => clientScopesService.update(ex, clientId, { name })));
      out(JSON.stringify(changed));
    } catch (error) {
      if (isAppError(error) && error.code === 'NOT_FOUND') throw new CliUsageError(`no active client ${clientId}`);
      throw error;
    }
    return;
  }
  throw new CliUsageError(`unknown command: clients ${sub ?? ''}`.trim());
}

export async function run(argv: string[], out: Out = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const [command, ...args] = argv;
  if (command === '--version' || command === 'version') {
    out(packageVersion());
    return 0;
  }
  const words = argv.filter((a) => !a.startsWith('-')).slice(0, 2);
  const unknown = unknownCommand(command === 'help' ? args : argv);
  if (unknown !== null) {
    process.stderr.write(`svc: ${unknown}\nRun '${helpPointer(command === 'help' ? args : words)}' for usage.\n`);
    return 2;
  }
  if (argv.includes('--help') || argv.includes('-h') || command === 'help') {
    out(helpFor(command === 'help' ? args : words));
    return 0;
  }
  const withDb = withDbFor(command === 'seed' ? command : `${command} ${args[0]}`);
  try {
    switch (command) {
      case 'clients':
        await clients(args, out, withDb);
        return 0;
      case 'users':
        await users(args, out, withDb);
        return 0;
      case 'vendors':
        await vendors(args, out, withDb);
        return 0;
      case 'apps':
        await apps(args, out, withDb);
        return 0;
      case 'webhooks':
        await webhooks(args, out, withDb);
        return 0;
      case 'rules':
        await rules(args, out, withDb);
        return 0;
      case 'poll':
        await (await integration()).runPoll(args);
        return 0;
      case 'report':
        return (await (await integration()).runReport(args, out)) ? 0 : 1;
      case 'export':
        return (await (await integration()).runExport(args, out)) ? 0 : 1;
      case 'receipts':
        await (await integration()).runReceipts(args, out);
        return 0;
      case 'seed':
        await withDb((db) => seed(db, args, out));
        return 0;
      case 'backup':
        await backup(args, out, packageVersion());
        return 0;
      case 'restore':
        await restore(args, out);
        return 0;
      case 'copy':
        await copy(args, out);
        return 0;
      case 'account':
        await account(args, out, packageVersion());
        return 0;
      case 'migrate':
        await migrate(args, out, ({ existing }) => openFromEnv(1, existing).db);
        return 0;
      case undefined:
        process.stderr.write(`${USAGE}\n`);
        return 2;
      default:
        throw new CliUsageError(`unknown command: ${command}`);
    }
  } catch (error) {
    const usage =
      error instanceof CliUsageError ||
      error instanceof ConfigError ||
      (error instanceof Error && error.name === 'IntegrationUsageError') ||
      errorCode(error)?.startsWith('ERR_PARSE_ARGS') === true;
    if (usage && error instanceof Error) {
      process.stderr.write(`svc: ${error.message}\nRun '${helpPointer(words)}' for usage.\n`);
      return 2;
    }
    process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
