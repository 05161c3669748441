import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { isAppError } from '../errors.js';
import { deliveriesService } from '../modules/webhooks/deliveries.service.js';
import { webhooksService } from '../modules/webhooks/webhooks.service.js';
import { CliUsageError, parseAccount } from './usage.js';
import { operatorSource } from '../modules/audit/audit.service.js';

type Out = (line: string) => void;

/** `svc webhooks …`: the operator's view of an account's webhook endpoints (the API is `/v1/webhooks`). */
export async function webhooks(
  args: string[],
  out: Out,
  withDb: <T>(work: (db: Db, config: Config) => Promise<T>) => Promise<T>,
): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { account: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const tenant = operatorSource(parseAccount(values.account));
  if (sub === 'list') {
    if (positionals.length > 0) throw new CliUsageError('webhooks list takes no webhook id');
    for (const endpoint of await withDb((db) => webhooksService.listAll(db.direct, tenant)))
      out(JSON.stringify(endpoint));
    return;
  }
  if (sub === 'test') {
    if (positionals.length !== 1) throw new CliUsageError('give exactly one webhook id');
    // Queued like POST /v1/webhooks/{id}/test: the server's dispatcher sends it (this command sends nothing itself).
    const sent = await refusalsAsUsage(() =>
      withDb((db) => db.write((ex) => deliveriesService.sendTest(ex, tenant, positionals[0]!))),
    );
    out(JSON.stringify(sent));
    return;
  }
  if (sub === 'disable' || sub === 'enable') {
    if (positionals.length !== 1) throw new CliUsageError('give exactly one webhook id');
    const status = sub === 'disable' ? 'DISABLED' : 'ENABLED';
    const changed = await refusalsAsUsage(() =>
      withDb((db, config) =>
        db.write((ex) =>
          webhooksService.update(
            ex,
            tenant,
            positionals[0]!,
            { status },
            {
              allowPrivate: config.webhookAllowPrivateTargets,
              allowLoopback: config.webhookAllowLoopbackTargets,
            },
          ),
        ),
      ),
    );
    out(JSON.stringify(changed));
    return;
  }
  throw new CliUsageError(`unknown command: webhooks ${sub ?? ''}`.trim());
}

/** A refusal of the service (an unknown or disabled endpoint) is the operator's mistake: exit 2 with its words. */
async function refusalsAsUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error) && error.status < 500) throw new CliUsageError(error.message);
    throw error;
  }
}
