import { ALL_SCOPES } from '../modules/auth/scopes.js';
import { ROLES } from '../modules/users/roles.js';

/**
 * Every command's help, by its words ("clients create"). `svc <words> --help` prints the most specific entry;
 * a usage error names the one problem and points at it.
 */
const HELP: Record<string, string> = {
  'clients create': `svc clients create --account <account_id> --scopes "<scope> <scope> ..." [--name <name>]
    Creates an API client (and the account if new); prints its credentials as JSON. The secret is shown once.
    --account   the account, 1 to 64 letters, digits, "_", "-", "." (required)
    --name      what the client is called ("ERP nightly sync"), at most 100 characters
    --scopes    space- or comma-separated, at least one of: ${ALL_SCOPES.join(', ')} (required)`,
  'clients list': `svc clients list [--account <account_id>]
    The clients (of one account, or of all) as JSON lines; never their secrets.`,
  'clients revoke': `svc clients revoke <client_id>
    Revokes the client; its tokens stop working at once.`,
  'clients rotate-secret': `svc clients rotate-secret <client_id> [--overlap-seconds N]
    Prints a new secret (shown once). The old one keeps working N more seconds (default 86400, a day; 0 stops it
    at once; at most 604800), so an integration can switch without a moment when neither works. Tokens already
    issued are not affected.`,
  'clients scopes': `svc clients scopes <client_id> --scopes "<scope> <scope> ..."
    Replaces the client's scopes; prints the client as JSON. A scope taken away is taken from its live tokens at
    once; a scope added reaches only tokens issued from now on.
    --scopes    space- or comma-separated, at least one of the scopes listed under "clients create" (required)`,
  'clients rename': `svc clients rename <client_id> --name <name>
    Gives the client a name (at most 100 characters; "" for none); prints the client as JSON.`,
  'users create': `svc users create --account <account_id> --email <email> --role <${ROLES.join('|')}>
    Creates a console user (and the account if new) and prints a one-time link (72 hours) where they set their
    first password. No password is ever given on the command line. Links are made with PUBLIC_URL
    (default http://HOST:PORT).`,
  'users list': `svc users list [--account <account_id>]
    Console users as JSON lines: id, account, email, role, status (INVITED, ACTIVE, DISABLED), whether two-step
    sign-in is set up (mfa_enrolled).`,
  'users disable': `svc users disable <user_id>
    Ends the user's sessions at once and refuses their sign-in.`,
  'users reset-password': `svc users reset-password <user_id>
    The old password stops working and every session ends; prints a new one-time link (re-enables a disabled
    user).`,
  'users reset-mfa': `svc users reset-mfa <user_id>
    Removes the user's two-step sign-in (authenticator, passkeys and recovery codes; a lost phone or key) and ends
    their sessions: they sign in with their password alone, or set up a second factor first where the account
    requires it.`,
  'vendors create': `svc vendors create --vendor <vendor_id> [--name <name>]
    Creates an ERP vendor id: what a partner sends as "vendor" to create an integration (POST
    /v3/accounting/integration); prints it as JSON.
    --vendor   1 to 64 letters, digits, "_", "-", "." (not first), compared exactly (required)
    --name     who the vendor is, for people (default: the vendor id)`,
  'vendors list': `svc vendors list
    Every vendor as JSON lines: vendor, name, status (ACTIVE, DISABLED), created_at, disabled_at.`,
  'vendors disable': `svc vendors disable <vendor_id>
    No integration can be created or reactivated with the vendor any more (400); its active integrations stay
    active (an account disconnects its own).`,
  'vendors enable': `svc vendors enable <vendor_id>
    Undoes disable.`,
  'apps create': `svc apps create --name <name> --redirect-uri <uri> [--redirect-uri <uri> ...] [--public]
    Registers a partner app (an OAuth client of the authorization code flow, PKCE required) that account admins
    may connect in the console; prints it as JSON with its client_secret, shown once (none with --public: a
    browser or native app that keeps no secret).
    --redirect-uri   where the answer goes, matched exactly: https, or http on 127.0.0.1, [::1], localhost`,
  'apps list': `svc apps list
    Every partner app as JSON lines: app_id, name, client_type, redirect_uris, status; never secrets.`,
  'apps disable': `svc apps disable <app_id>
    No new authorization; every token of the app, in every account, stops working at once.`,
  'apps enable': `svc apps enable <app_id>
    Undoes disable for new authorizations (the spent tokens stay spent).`,
  'apps rotate-secret': `svc apps rotate-secret <app_id>
    A new client_secret for a confidential app, shown once; the old one stops working at once.`,
  'webhooks list': `svc webhooks list --account <account_id>
    The account's webhook endpoints as JSON lines: id, url, event types, status and, when DISABLED, why. Never
    their secrets (GET /v1/webhooks/{id}/secret). Endpoints are made through the API (POST /v1/webhooks).`,
  'webhooks disable': `svc webhooks disable <webhook_id> --account <account_id>
    Stops deliveries to the endpoint (they wait); the reason names svc webhooks.`,
  'webhooks enable': `svc webhooks enable <webhook_id> --account <account_id>
    Resumes deliveries, the waiting ones at once; events of the disabled time are not sent unless redelivered
    (POST /v1/webhooks/{id}/redeliver {since}).`,
  'webhooks test': `svc webhooks test <webhook_id> --account <account_id>
    Queues a signed test event (webhook.test) for the endpoint alone, as POST /v1/webhooks/{id}/test does, and
    prints it as JSON; the server delivers it, and its delivery log shows the attempts. A disabled endpoint is
    refused (exit 2): enable it first.`,
  'rules list': `svc rules list --account <account_id>
    The account's coding rules as JSON lines, in precedence order, each with its status computed now (BROKEN: a
    value it sets was deleted or disabled since).`,
  'rules create': `svc rules create --account <account_id> (--file <rule.json> | --json '<rule>')
    Creates a coding rule from the body POST /internal/v1/accounting/coding-rules takes ({name, conditions,
    actions, position?, enabled?}) and prints it as JSON. A body that is not JSON, or a rule the API would refuse
    (400 or 422), is refused (exit 2) naming each problem.`,
  'rules apply': `svc rules apply --account <account_id> [--rule <rule_id> ...] [--record <record_id> ...] [--overwrite] [--dry-run]
    Applies the enabled rules (or those named) to the PREPARE and REVIEW records (or those named), all or nothing,
    as POST /internal/v1/accounting/coding-rules/apply does, and prints {records_changed,
    updated_accounting_record_ids}. A value a person set is replaced only with --overwrite.
    --dry-run   runs the same apply in a transaction that is rolled back: prints what it would change (with
                "dry_run": true) and writes nothing`,
  poll: `svc poll --checkpoint <file> [--out <file>|-] [--once | --interval <seconds>] [--page-size N]
    Polls records to export (card and reimbursement: READY_FOR_EXPORT; bills: source_type=BILL) as NDJSON,
    resuming from the checkpoint: a restart neither misses nor repeats a record.
    --out         where records go (default -: standard output)
    --interval    seconds between polls when not --once (default 3600)
    --page-size   records per request, 1 to 500 (default 500)
    Connection: --url --client-id --client-secret (or --token), or SVC_URL SVC_CLIENT_ID SVC_CLIENT_SECRET
    SVC_TOKEN. A partner app: --client-id app_… [--client-secret] --refresh-token-file <file> (or
    SVC_REFRESH_TOKEN_FILE): the file holds its refresh token and is rewritten with each rotated one.`,
  report: `svc report [--in <file>|-]
    Posts export results (NDJSON lines {accounting_record_id, success|failure}) in batches with idempotency keys.
    --in   where results come from (default -: standard input)
    Connection: as for svc poll.`,
  export: `svc export --format <hledger|beancount|csv|quickbooks|xero|netsuite> --out <file> [--from DAY] [--to DAY | --record <id> ...]
           [--balancing TYPE=Account ...] [--account-field <field_id>] [--columns a,b,...]
    Writes READY_FOR_EXPORT records (all, those posted in a range of days, or those named) to a journal or CSV
    (docs/exports.md), appended to the file without the records it holds already, replaced whole (written beside
    it, then renamed); then reports each through export results: SUCCESS with its place in the file
    ("books.journal:42"), FAILURE with the reason for a record svc cannot map. Prints a JSON line per record and a
    summary; exits 1 when a record failed or was not exported.
    --balancing      the account of a balancing_account_type, e.g. CARD_LIABILITY=Liabilities:Amex
    --account-field  the field whose values are the GL accounts (default: the field named GL Account)
    --columns        CSV only: reference,date,payee,narration,account,account_code,account_name,debit,credit,
                     amount,currency,memo,dimension:<field> ... (reference always first)
    Connection: as for svc poll (a client with accounting.record.write).`,
  'receipts add': `svc receipts add <record_id> <file> [--idempotency-key <key>]
    Uploads the file (JPEG, PNG, WebP or PDF, recognised by its bytes) and attaches it to the record; prints the
    receipt with its signed links as one JSON line (docs/receipts.md).
    Connection: as for svc poll (a client with accounting.record.admin or accounting.record.review).`,
  seed: `svc seed --account <account_id> [--records N] [--values N] [--into-existing]
    Writes a demo company: a chart of accounts (GL Account), departments, offices and classes, and a history
    of accounting records of every type and state, each merchant always coded to its own account, with a queue
    of uncoded records of the same merchants; into a new account, three coding rules to try. Shows its
    progress on stderr when run at a terminal.
    --records         records to write (default 1000)
    --values          field values to write over the demo fields (default 100)
    --into-existing   an account that has data is refused unless given; then the demo fields are new fields
                      named "Demo …" beside the account's own, never one of them`,
  backup: `svc backup --out <dir>
    A consistent backup of the database while the service runs and takes writes (SQLite: the online backup API;
    PostgreSQL: pg_dump's custom format from one snapshot, pg_dump found on PATH). Written under a temporary name,
    checked, then renamed to <dir>: the data file and manifest.json (schema version, rows per table, SHA-256).
    Prints the manifest's summary as JSON. Never overwrites; docs/operations.md, "Backups".
    --out   the backup directory to create (required; its folder must exist)`,
  restore: `svc restore --from <dir>
    Restores a backup made by svc backup into the database DATABASE_URL names, which must be empty (no table):
    checks the manifest and the data file's checksum, restores (PostgreSQL: pg_restore in one transaction), checks
    the rows per table, runs the migrations this svc has that the backup had not, and prints what it restored.
    --from   the backup directory (required)`,
  copy: `svc copy --from <database_url> --to <database_url>
    Copies a whole svc database into an empty one, SQLite to PostgreSQL or back (URLs as DATABASE_URL takes them):
    the target is migrated to the source's schema, every row copied from one snapshot in one transaction (all or
    nothing), the rows per table compared, then the target's pending migrations run. Stop the service first, or
    writes made during the copy stay behind in the source.`,
  'account export': `svc account export --account <account_id> --out <dir>
    Everything of one account, from one snapshot, as JSON lines per table (<table>.jsonl, columns as stored) with a
    manifest of rows and SHA-256s; tokens, sessions, codes and other short-lived rows left out, secrets redacted.`,
  'account delete': `svc account delete --account <account_id> --confirm <account_id>
    Deletes the account and all its data in one transaction; its audit log stays, with an account.deleted entry
    naming the rows deleted per table. Cannot be undone: take a backup first (svc backup).`,
  migrate: `svc migrate [--plan | --notes]
    Applies the database migrations (the server also does so at start) and prints those it applied.
    --plan    applies nothing: prints the pending migrations as JSON, each online (safe while the service runs)
              or not (stop the service first), with the rows now in the tables it works through
    --notes   prints every migration's release note (a Markdown table; no database is opened)`,
  version: `svc --version
    Prints the version of svc.`,
};

const DATABASE_NOTE = `The commands that open the database use DATABASE_URL as the server does (default: data/svc.sqlite in the
package's folder, wherever the command is run from) and name it on stderr.`;

function group(prefix: string): string[] {
  return Object.entries(HELP)
    .filter(([words]) => words === prefix || words.startsWith(`${prefix} `))
    .map(([, text]) => `  ${text.replaceAll('\n', '\n  ')}`);
}

/** The whole usage: every command. */
export const USAGE = `Usage: svc <command> [--help]

${Object.values(HELP)
  .map((text) => `  ${text.replaceAll('\n', '\n  ')}`)
  .join('\n')}

${DATABASE_NOTE}`;

/** Help for the words given (`["clients", "create"]`): the command's own, its group's, or the whole usage. */
export function helpFor(words: readonly string[]): string {
  const [command, sub] = words;
  if (command && sub && HELP[`${command} ${sub}`])
    return `Usage:\n  ${HELP[`${command} ${sub}`]!.replaceAll('\n', '\n  ')}`;
  if (command && group(command).length > 0) return `Usage:\n${group(command).join('\n')}`;
  return USAGE;
}

/** Where `--help` for a mistaken call is: the command (and subcommand) that were recognised. */
export function helpPointer(words: readonly string[]): string {
  const [command, sub] = words;
  if (command && sub && HELP[`${command} ${sub}`]) return `svc ${command} ${sub} --help`;
  if (command && group(command).length > 0) return `svc ${command} --help`;
  return 'svc --help';
}

const COMMANDS = [...new Set(Object.keys(HELP).map((words) => words.split(' ')[0]!)), 'help', 'version'];
const subcommandsOf = (command: string): string[] =>
  Object.keys(HELP)
    .filter((words) => words.startsWith(`${command} `))
    .map((words) => words.slice(command.length + 1));

/** Levenshtein's distance: the fewest one-character edits from `a` to `b`. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known word nearest to `word`, when it is near enough to be a slip (a typo, not another word). */
function nearest(word: string, known: readonly string[]): string | null {
  const scored = known.map((candidate) => ({ candidate, d: distance(word, candidate) }));
  const best = scored.sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(best.candidate.length / 3)) ? best.candidate : null;
}

/**
 * The problem with a call's command words, or null when they name a command: `svc lanch` and `svc clients craete`
 * are refused (exit 2) with or without --help, naming the word and the nearest command, so that a script can tell a
 * typo from a real command. Only commands with subcommands have their second word checked (the others take
 * operands).
 */
export function unknownCommand(argv: readonly string[]): string | null {
  const [command, second] = argv;
  if (command === undefined || command.startsWith('-')) return null;
  const suggest = (word: string, known: readonly string[], prefix: string) => {
    const near = nearest(word, known);
    return near === null ? '' : ` (did you mean '${prefix}${near}'?)`;
  };
  if (!COMMANDS.includes(command)) return `unknown command: ${command}${suggest(command, COMMANDS, 'svc ')}`;
  const subcommands = subcommandsOf(command);
  if (subcommands.length === 0 || second === undefined || second.startsWith('-')) return null;
  if (subcommands.includes(second)) return null;
  return `unknown command: ${command} ${second}${suggest(second, subcommands, `svc ${command} `)}`;
}
