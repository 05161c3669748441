import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { auditService, operatorSource, type AuditSource } from '../audit/audit.service.js';
import { authRepository } from './auth.repository.js';
import { clientRowToListing, type ClientListing } from './client-listing.js';
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

/** Who changes a client: its account (undefined for an operator), the scopes it may add, where it acts from. */
export interface ChangeOptions {
  accountId?: string;
  grantable?: ReadonlySet<string>;
  source?: AuditSource;
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
    options: ChangeOptions = {},
  ): Promise<ClientListing> {
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
    return clientRowToListing({ ...client, scopes: scopes.join(' ') });
  },

  /**
   * Changes what is given of an API client (its name, its scopes: `change`'s rules) in the caller's transaction;
   * a new name is audited as api_client.renamed with the name before and after; the same name changes nothing.
   */
  async update(
    ex: Executor,
    clientId: string,
    input: { name?: string; scopes?: readonly Scope[] },
    options: ChangeOptions = {},
  ): Promise<ClientListing> {
    const client = await activeApiClient(ex, clientId, options.accountId);
    const name = input.name?.trim();
    if (name !== undefined && name !== client.name) {
      await authRepository.setName(ex, client.account_id, clientId, name);
      await auditService.record(
        ex,
        options.source ?? operatorSource(client.account_id),
        'api_client.renamed',
        { type: 'api_client', id: clientId },
        { name_before: client.name, name_after: name },
      );
    }
    const named = { ...client, name: name ?? client.name };
    if (input.scopes === undefined) return clientRowToListing(named);
    return { ...(await clientScopesService.change(ex, clientId, input.scopes, options)), name: named.name };
  },
};
