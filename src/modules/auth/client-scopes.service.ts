import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso } from '../../lib/clock.js';
import { auditService, operatorSource, type AuditSource } from '../audit/audit.service.js';
import { authRepository } from './auth.repository.js';
import type { OauthClientsTable } from './auth.tables.js';
import { splitScopes, type Scope } from './scopes.js';

/**
 * The active API client `clientId` (of `accountId` when given); NOT_FOUND for another account's, an unknown one,
 * a revoked one, or a partner app's connection (revoked as a connected app, never changed as an API client).
 */
export async function activeApiClient(ex: Executor, clientId: string, accountId?: string): Promise<OauthClientsTable> {
  const client = await authRepository.findClient(ex, clientId);
  const active =
    client &&
    client.revoked_at === null &&
    client.app_id === null &&
    (accountId === undefined || client.account_id === accountId);
  if (!active) throw errors.notFound(`Active client ${clientId}`, { client_id: clientId });
  return client;
}

export interface ChangedClient {
  client_id: string;
  account_id: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

export const clientScopesService = {
  /**
   * Gives an API client these scopes, in the caller's transaction. `grantable`: the scopes the caller may add (its
   * own; undefined for an operator); scopes the client holds already may stay. A scope taken away is taken from
   * the client's live access tokens at once (a token left with none is deleted: its next request answers 401);
   * a scope added reaches only tokens issued from now on. Audited with the scopes before and after.
   */
  async change(
    ex: Executor,
    clientId: string,
    scopes: readonly Scope[],
    options: { accountId?: string; grantable?: ReadonlySet<string>; source?: AuditSource } = {},
  ): Promise<ChangedClient> {
    const client = await activeApiClient(ex, clientId, options.accountId);
    if (scopes.length === 0) throw errors.invalidField('/scopes', 'must name at least one scope');
    const before = splitScopes(client.scopes);
    const { grantable } = options;
    // No escalation: a scope the client lacks is added only by a caller that holds it.
    const beyond = grantable ? scopes.filter((scope) => !before.includes(scope) && !grantable.has(scope)) : [];
    if (beyond.length > 0) throw errors.scopesNotHeld(beyond);

    const kept = new Set<string>(scopes);
    await authRepository.setScopes(ex, client.account_id, clientId, scopes.join(' '));
    for (const held of await authRepository.tokenScopeSets(ex, client.account_id, clientId)) {
      const narrowed = splitScopes(held).filter((scope) => kept.has(scope));
      if (narrowed.join(' ') !== held) {
        await authRepository.replaceTokenScopes(ex, client.account_id, clientId, held, narrowed.join(' '));
      }
    }
    await auditService.record(
      ex,
      options.source ?? operatorSource(client.account_id),
      'api_client.scopes_changed',
      { type: 'api_client', id: clientId },
      { scopes_before: before, scopes_after: [...scopes] },
    );
    return {
      client_id: clientId,
      account_id: client.account_id,
      scopes: [...scopes],
      created_at: microsToIso(client.created_at),
      revoked_at: null,
    };
  },
};
