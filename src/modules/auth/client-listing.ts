import { microsToIso } from '../../lib/clock.js';
import type { OauthClientsTable } from './auth.tables.js';
import { splitScopes } from './scopes.js';

/** A client as listed (never its secret). */
export interface ClientListing {
  client_id: string;
  account_id: string;
  name: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** How long a client's stored last use may lag: it is written at token issuance, at most once per this. */
export const LAST_USE_PRECISION_MICROS = 60_000_000;

/** A stored client as the API lists it. */
export function clientRowToListing(row: OauthClientsTable): ClientListing {
  return {
    client_id: row.client_id,
    account_id: row.account_id,
    name: row.name,
    scopes: splitScopes(row.scopes),
    created_at: microsToIso(row.created_at),
    revoked_at: row.revoked_at === null ? null : microsToIso(row.revoked_at),
    last_used_at: row.last_used_at === null ? null : microsToIso(row.last_used_at),
  };
}
