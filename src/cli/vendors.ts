import { parseArgs } from 'node:util';
import type { Db } from '../db/database.js';
import { vendorsService } from '../modules/integrations/vendors.service.js';
import { asUsage, CliUsageError, onePositional } from './usage.js';

type Out = (line: string) => void;

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
    const vendor = onePositional(rest, 'vendor id');
    const change = (db: Db) =>
      sub === 'disable' ? vendorsService.disable(db, vendor) : vendorsService.enable(db, vendor);
    out(JSON.stringify(await withDb((db) => asUsage(() => change(db)))));
    return;
  }
  throw new CliUsageError(`unknown command: vendors ${sub ?? ''}`.trim());
}
