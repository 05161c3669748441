import { parseArgs } from 'node:util';
import type { Db } from '../db/database.js';
import { appsService } from '../modules/auth/apps.service.js';
import { asUsage, CliUsageError, onePositional } from './usage.js';

type Out = (line: string) => void;

/** `svc apps …`: the partner apps an account admin may connect (OAuth authorization code). */
export async function apps(
  args: string[],
  out: Out,
  withDb: <T>(work: (db: Db) => Promise<T>) => Promise<T>,
): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        'redirect-uri': { type: 'string', multiple: true },
        public: { type: 'boolean' },
      },
      strict: true,
    });
    if (!values.name) throw new CliUsageError('--name is required');
    const redirectUris = values['redirect-uri'] ?? [];
    if (redirectUris.length === 0) throw new CliUsageError('--redirect-uri is required (once per URI)');
    const input = { name: values.name, redirectUris, public: values.public ?? false };
    out(JSON.stringify(await withDb((db) => asUsage(() => appsService.create(db, input)))));
    return;
  }
  if (sub === 'list') {
    parseArgs({ args: rest, strict: true });
    for (const app of await withDb((db) => appsService.list(db))) out(JSON.stringify(app));
    return;
  }
  if (sub === 'disable' || sub === 'enable' || sub === 'rotate-secret') {
    const appId = onePositional(rest, 'app id');
    const change = (db: Db) =>
      sub === 'disable'
        ? appsService.disable(db, appId)
        : sub === 'enable'
          ? appsService.enable(db, appId)
          : appsService.rotateSecret(db, appId);
    out(JSON.stringify(await withDb((db) => asUsage(() => change(db)))));
    return;
  }
  throw new CliUsageError(`unknown command: apps ${sub ?? ''}`.trim());
}
