import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { isAppError } from '../errors.js';
import { mfaService } from '../modules/users/mfa.service.js';
import { ROLES } from '../modules/users/roles.js';
import { usersService, type PasswordLink } from '../modules/users/users.service.js';
import { CliUsageError, onePositional, parseAccount } from './usage.js';

type Out = (line: string) => void;

function linkJson(config: Config, link: PasswordLink): string {
  // The token travels in the fragment: browsers never send it to a server, so no proxy or access log keeps it.
  const url = `${config.publicUrl}/console/set-password#token=${encodeURIComponent(link.token)}`;
  return JSON.stringify({ ...link.user, password_link: url, password_link_expires_at: link.expires_at });
}

async function orNoSuchUser<T>(userId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error) && error.code === 'NOT_FOUND') throw new CliUsageError(`no user ${userId}`);
    if (isAppError(error) && error.status < 500) throw new CliUsageError(error.message);
    throw error;
  }
}

/** `svc users …`: console users, through the users service as the API would. */
export async function users(
  args: string[],
  out: Out,
  withDb: <T>(work: (db: Db, config: Config) => Promise<T>) => Promise<T>,
): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { account: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
      strict: true,
    });
    const accountId = parseAccount(values.account);
    if (!values.email) throw new CliUsageError('--email is required');
    if (!values.role) throw new CliUsageError(`--role is required: ${ROLES.join(', ')}`);
    const { email, role } = values;
    out(
      await withDb(async (db, config) =>
        linkJson(config, await orNoSuchUser(email, () => usersService.create(db, { accountId, email, role }))),
      ),
    );
    return;
  }
  if (sub === 'list') {
    const { values } = parseArgs({ args: rest, options: { account: { type: 'string' } }, strict: true });
    for (const user of await withDb((db) => usersService.list(db, values.account ?? null))) out(JSON.stringify(user));
    return;
  }
  if (sub === 'disable') {
    const userId = onePositional(rest, 'user_id');
    const user = await withDb((db) => orNoSuchUser(userId, () => usersService.disable(db, userId)));
    out(JSON.stringify(user));
    return;
  }
  if (sub === 'reset-password') {
    const userId = onePositional(rest, 'user_id');
    out(
      await withDb(async (db, config) =>
        linkJson(config, await orNoSuchUser(userId, () => usersService.resetPassword(db, userId))),
      ),
    );
    return;
  }
  if (sub === 'reset-mfa') {
    const userId = onePositional(rest, 'user_id');
    const user = await withDb((db) => orNoSuchUser(userId, () => mfaService.reset(db, null, userId)));
    out(JSON.stringify(user));
    return;
  }
  throw new CliUsageError(`unknown command: users ${sub ?? ''}`.trim());
}
