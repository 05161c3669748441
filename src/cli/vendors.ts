import { parseArgs } from 'node:util';
import type { Db } from '../db/database.js';
import { isAppError } from '../errors.js';
import { vendorsService } from '../modules/integrations/vendors.service.js';
import { CliUsageError } from './usage.js';

type Out = (line: string) => void;

function oneVendor(rest: string[]): string {
  const { positionals } = parseArgs({ args: rest, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new CliUsageError('give exactly one vendor id');
  return positionals[0]!;
}

/** The service's refusals (a taken or malformed id, an unknown vendor) are the operator's mistakes: exit 2. */
async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error) && error.status < 500) throw new CliUsageError(error.message);
    throw error;
  }
}

/** `svc vendors …`: the ERP vendor ids partners send as `vendor` when they create an integration. */
export async function vendors(
  args: string[],
  out: Out,
  withDb: <T>(work: (db: Db) => Promise<T>) => Promise<T>,
): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { vendor: { type: 'string' }, name: { type: 'string' } },
      strict: true,
    });
    const { vendor, name } = values;
    if (!vendor) throw new CliUsageError('--vendor is required');
    out(JSON.stringify(await withDb((db) => asUsage(() => vendorsService.create(db, { vendor, name })))));
    return;
  }
  if (sub === 'list') {
    parseArgs({ args: rest, strict: true });
    for (const vendor of await withDb((db) => vendorsService.list(db))) out(JSON.stringify(vendor));
    return;
  }
  if (sub === 'disable' || sub === 'enable') {
    const vendor = oneVendor(rest);
    const change = (db: Db) =>
      sub === 'disable' ? vendorsService.disable(db, vendor) : vendorsService.enable(db, vendor);
    out(JSON.stringify(await withDb((db) => asUsage(() => change(db)))));
    return;
  }
  throw new CliUsageError(`unknown command: vendors ${sub ?? ''}`.trim());
}
