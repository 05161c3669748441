import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import type { Db } from '../db/database.js';
import { errorCode } from '../db/failures.js';
import { openDatabase } from '../db/open.js';
import { migrateToLatest } from '../db/migrate.js';
import { isAppError } from '../errors.js';
import { authService } from '../modules/auth/auth.service.js';
import { ALL_SCOPES } from '../modules/auth/scopes.js';
import { seed } from './seed.js';
import { CliUsageError, parseAccount, parseScopeList } from './usage.js';

const INTEGRATION_USAGE_TEXT = `  svc poll --checkpoint <file> [--out <file>|-] [--once | --interval <seconds>] [--page-size N]
      Polls records to export (card and reimbursement: READY_FOR_EXPORT; bills: source_type=BILL) as NDJSON,
      resuming from the checkpoint: a restart neither misses nor repeats a record.
  svc report [--in <file>|-]
      Posts export results (NDJSON lines {accounting_record_id, success|failure}) in batches with idempotency keys.
      Connection: --url --client-id --client-secret (or --token), or SVC_URL SVC_CLIENT_ID SVC_CLIENT_SECRET SVC_TOKEN.`;

const USAGE = `Usage: svc <command>

  svc clients create --account <account_id> --scopes "<scope> <scope> ..."
      Creates an API client (and the account if new); prints its credentials as JSON. The secret is shown once.
  svc clients list [--account <account_id>]
  svc clients revoke <client_id>
      Revokes the client; its tokens stop working at once.
${INTEGRATION_USAGE_TEXT}
  svc seed --account <account_id> [--records N] [--values N]
      Writes realistic demo data: fields with values and accounting records of every type and state.
  svc migrate
      Applies the database migrations (the server also does so at start).

Honours DATABASE_URL like the server. Scopes: ${ALL_SCOPES.join(', ')}`;

type Out = (line: string) => void;

/**
 * `svc poll` / `svc report` are the reference integration, built on the SDK alone (client/); loaded from the
 * client's own build so that the server never depends on it.
 */
interface Integration {
  runPoll(args: string[]): Promise<void>;
  runReport(args: string[], out: Out): Promise<boolean>;
}
async function integration(): Promise<Integration> {
  const compiled = new URL('../../client/dist/integration/cli.js', import.meta.url);
  const loaded: Integration = await import(compiled.href);
  return loaded;
}

async function withDb<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env);
  const db = openDatabase(config.database, { poolSize: 2 });
  try {
    await migrateToLatest(db);
    return await work(db);
  } finally {
    await db.close();
  }
}

async function clients(args: string[], out: Out): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { account: { type: 'string' }, scopes: { type: 'string' } },
      strict: true,
    });
    const account = parseAccount(values.account);
    if (values.scopes === undefined) throw new CliUsageError('--scopes is required');
    const scopes = parseScopeList(values.scopes);
    const creds = await withDb((db) => authService.createClient(db, account, scopes));
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
  throw new CliUsageError(`unknown command: clients ${sub ?? ''}`.trim());
}

export async function run(argv: string[], out: Out = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'clients':
        await clients(args, out);
        return 0;
      case 'poll':
        await (await integration()).runPoll(args);
        return 0;
      case 'report':
        return (await (await integration()).runReport(args, out)) ? 0 : 1;
      case 'seed':
        await withDb((db) => seed(db, args, out));
        return 0;
      case 'migrate': {
        const config = loadConfig(process.env);
        const db = openDatabase(config.database, { poolSize: 1 });
        try {
          out(JSON.stringify({ applied: await migrateToLatest(db) }));
        } finally {
          await db.close();
        }
        return 0;
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out(USAGE);
        return command === undefined ? 2 : 0;
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
      process.stderr.write(`svc: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`svc: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
