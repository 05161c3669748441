import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { SvcClient } from '../index.js';
import { pollOnce } from './poll.js';
import { parseResults, reportResults } from './report.js';
import { exportToFile } from './export.js';
import type { BalancingAccountType, ExportFileRequest, ExportFormat } from '../index.js';

/**
 * `svc poll` and `svc report`: the reference integration, built on the SDK alone. Connection settings come
 * from flags or the environment (SVC_URL, SVC_CLIENT_ID, SVC_CLIENT_SECRET or SVC_TOKEN), or for a partner app
 * connected by authorization code, its client id (and secret, if confidential) and SVC_REFRESH_TOKEN_FILE.
 */
const connection = {
  url: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  token: { type: 'string' },
  'refresh-token-file': { type: 'string' },
} as const;

export class IntegrationUsageError extends Error {
  override name = 'IntegrationUsageError';
}

/** The parsed `connection` flags: each a string when given. */
interface ConnectionValues {
  url?: string;
  'client-id'?: string;
  'client-secret'?: string;
  token?: string;
  'refresh-token-file'?: string;
}

/**
 * A partner app's refresh token, kept in a file: read at start, replaced (write then rename, so a crash leaves the
 * old or the new one whole) each time a refresh answers the next one, since the old one is then spent.
 */
function refreshTokenIn(file: string): { refreshToken: string; onTokens: (t: { refresh_token: string }) => void } {
  let refreshToken: string;
  try {
    refreshToken = fs.readFileSync(file, 'utf8').trim();
  } catch {
    throw new IntegrationUsageError(`--refresh-token-file: cannot read ${file}`);
  }
  if (refreshToken === '') throw new IntegrationUsageError(`--refresh-token-file: ${file} is empty`);
  return {
    refreshToken,
    onTokens: (tokens) => {
      const next = `${file}.next`;
      fs.writeFileSync(next, `${tokens.refresh_token}\n`, { mode: 0o600 });
      fs.renameSync(next, file);
    },
  };
}

function clientFrom(values: ConnectionValues, env: NodeJS.ProcessEnv): SvcClient {
  const baseUrl = values.url ?? env.SVC_URL;
  const clientId = values['client-id'] ?? env.SVC_CLIENT_ID;
  const clientSecret = values['client-secret'] ?? env.SVC_CLIENT_SECRET;
  const token = values.token ?? env.SVC_TOKEN;
  const refreshFile = values['refresh-token-file'] ?? env.SVC_REFRESH_TOKEN_FILE;
  if (!baseUrl) throw new IntegrationUsageError('--url (or SVC_URL) is required');
  if (refreshFile !== undefined) {
    if (!clientId) throw new IntegrationUsageError('--refresh-token-file needs the app id: --client-id app_…');
    return new SvcClient({ baseUrl, clientId, clientSecret, ...refreshTokenIn(refreshFile) });
  }
  if (!token && !(clientId && clientSecret)) {
    throw new IntegrationUsageError(
      "give --client-id and --client-secret (or SVC_CLIENT_ID, SVC_CLIENT_SECRET), --token, or a partner app's --client-id with --refresh-token-file",
    );
  }
  return new SvcClient(token ? { baseUrl, token } : { baseUrl, clientId, clientSecret });
}

export async function runPoll(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...connection,
      checkpoint: { type: 'string' },
      out: { type: 'string', default: '-' },
      once: { type: 'boolean', default: false },
      interval: { type: 'string', default: '3600' },
      'page-size': { type: 'string', default: '500' },
    },
  });
  if (!values.checkpoint) throw new IntegrationUsageError('--checkpoint <file> is required');
  const interval = Number(values.interval);
  const pageSize = Number(values['page-size']);
  if (!Number.isFinite(interval) || interval <= 0) throw new IntegrationUsageError('--interval: seconds, > 0');
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 500)
    throw new IntegrationUsageError('--page-size: 1 to 500');
  const client = clientFrom(values, env);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const tty = process.stderr.isTTY;
  try {
    for (;;) {
      const counts = await pollOnce({
        client,
        output: values.out,
        checkpointFile: values.checkpoint,
        pageSize,
        signal: stop.signal,
        onProgress: tty
          ? (c) => process.stderr.write(`\rpolled ${c.ready_for_export} ready-for-export, ${c.bills} bill records`)
          : undefined,
      });
      if (tty) process.stderr.write('\n');
      process.stderr.write(`${JSON.stringify({ polled_at: new Date().toISOString(), ...counts })}\n`);
      if (values.once) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, interval * 1000);
        stop.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (stop.signal.aborted) return;
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export async function runReport(
  args: string[],
  out: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { ...connection, in: { type: 'string', default: '-' } },
  });
  const client = clientFrom(values, env);
  const text = fs.readFileSync(values.in === '-' ? 0 : values.in, 'utf8');
  const outcome = await reportResults(client, parseResults(text));
  for (const id of outcome.updated) out(JSON.stringify({ accounting_record_id: id, updated: true }));
  for (const r of outcome.refused) out(JSON.stringify({ ...r, updated: false }));
  out(JSON.stringify({ updated: outcome.updated.length, refused: outcome.refused.length }));
  return outcome.refused.length === 0;
}

const FORMATS: readonly ExportFormat[] = ['hledger', 'beancount', 'csv', 'quickbooks', 'xero', 'netsuite'];

/** "CARD_LIABILITY=Liabilities:Amex" flags → the request's balancing_accounts (the server checks both sides). */
function balancingAccounts(pairs: string[]): ExportFileRequest['balancing_accounts'] {
  const out: Partial<Record<BalancingAccountType, string>> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1)
      throw new IntegrationUsageError(`--balancing: TYPE=Account, e.g. CARD_LIABILITY=Liabilities:Amex (got ${pair})`);
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the server refuses an unknown type (400)
    out[pair.slice(0, at) as BalancingAccountType] = pair.slice(at + 1);
  }
  return out;
}

/**
 * `svc export --format hledger --out books.journal`: READY_FOR_EXPORT records into a file, appended without
 * duplicates, then reported (export.ts). Prints one JSON line per record and a summary; false when a record failed
 * or was not exported.
 */
export async function runExport(
  args: string[],
  out: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...connection,
      format: { type: 'string' },
      out: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      record: { type: 'string', multiple: true },
      balancing: { type: 'string', multiple: true },
      'account-field': { type: 'string' },
      columns: { type: 'string' },
    },
  });
  const format = FORMATS.find((f) => f === values.format);
  if (format === undefined) throw new IntegrationUsageError(`--format: one of ${FORMATS.join(', ')}`);
  if (!values.out || values.out === '-')
    throw new IntegrationUsageError('--out <file> is required (the file is appended to)');
  if (values.record && (values.from || values.to))
    throw new IntegrationUsageError('give --record or --from/--to, not both');
  const client = clientFrom(values, env);
  const lines = await exportToFile({
    client,
    format,
    file: values.out,
    request: {
      ...(values.record ? { accounting_record_ids: values.record } : {}),
      ...(values.from ? { posted_from: values.from } : {}),
      ...(values.to ? { posted_to: values.to } : {}),
      ...(values.balancing ? { balancing_accounts: balancingAccounts(values.balancing) } : {}),
      ...(values['account-field'] ? { account_field_id: values['account-field'] } : {}),
      ...(values.columns ? { columns: values.columns.split(',').map((c) => c.trim()) } : {}),
    },
  });
  for (const line of lines) out(JSON.stringify(line));
  const count = (result: string) => lines.filter((l) => l.result === result).length;
  out(
    JSON.stringify({
      file: values.out,
      exported: count('SUCCESS'),
      failed: count('FAILURE'),
      not_exported: count('NOT_EXPORTED'),
      unreported: lines.filter((l) => 'reported' in l && !l.reported).length,
    }),
  );
  return lines.every((l) => l.result === 'SUCCESS' && l.reported);
}

/**
 * `svc receipts add RECORD FILE [--idempotency-key K]`: uploads FILE and attaches it to the record; prints the
 * receipt (with its signed links) as one JSON line. The server recognises the file's type from its bytes.
 */
export async function runReceipts(
  args: string[],
  out: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { ...connection, 'idempotency-key': { type: 'string' } },
  });
  const [command, recordId, file, ...rest] = positionals;
  if (command !== 'add' || !recordId || !file || rest.length > 0) {
    throw new IntegrationUsageError('usage: svc receipts add <record_id> <file> [--idempotency-key <key>]');
  }
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(fs.readFileSync(file));
  } catch {
    throw new IntegrationUsageError(`cannot read ${file}`);
  }
  const client = clientFrom(values, env);
  const answer = await client.receipts.upload(recordId, bytes, { idempotencyKey: values['idempotency-key'] });
  out(JSON.stringify({ ...answer.receipt, accounting_record_id: recordId, version: answer.record.version }));
}
