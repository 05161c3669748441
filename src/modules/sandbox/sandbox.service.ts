import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { ALL_SCOPES, authService, type Caller, type ClientCredentials } from '../auth/auth.service.js';
import { grantsService } from '../auth/grants.service.js';
import { accountingService } from '../accounting/accounting.service.js';
import { codingRulesService } from '../coding-rules/coding-rules.service.js';
import { draftsService } from '../drafts/drafts.service.js';
import { exportMapping } from '../exports/export-mapping.service.js';
import { fieldsService } from '../fields/fields.service.js';
import { schedulesService } from '../webhooks/schedules.service.js';
import { fireEvent, type FireRequest } from './events-on-demand.service.js';
import type { FaultBook, FaultMethod, FaultSpec, FaultState } from './faults.service.js';
import { applyScenario, type ScenarioName, type ScenarioSummary } from './scenarios.service.js';

export interface SandboxAccount extends ClientCredentials {
  scenario: ScenarioSummary;
}

const callerIn = (accountId: string): Caller => ({ accountId, actor: { type: 'system', id: 'sandbox' } });

/** A seed when none is asked for: any 32-bit number; the answer names it so that the data can be made again. */
const anySeed = () => Math.floor(Math.random() * 0x1_0000_0000);

export const sandboxService = {
  /** A new account (sbx_…) with one client of every scope, its credentials, and the scenario's data. */
  async createAccount(db: Db, scenario: ScenarioName, seed = anySeed()): Promise<SandboxAccount> {
    const credentials = await authService.createClient(db, newId('sbx'), ALL_SCOPES);
    const summary = await applyScenario(db, callerIn(credentials.account_id), scenario, seed);
    return { ...credentials, scenario: summary };
  },

  /**
   * Closes a sandbox account: every client of it is revoked (their tokens stop working at once) and their faults
   * are cleared. Its data stays, out of everyone's reach. NOT_FOUND when the account has no active client.
   */
  async deleteAccount(db: Db, faults: FaultBook, accountId: string): Promise<void> {
    const active = (await authService.listClients(db, accountId)).filter((c) => c.revoked_at === null);
    if (active.length === 0) throw errors.notFound(`Sandbox account ${accountId}`, { account_id: accountId });
    await db.write(async (ex) => {
      for (const client of active) await authService.revokeClientIn(ex, client.client_id, accountId);
    });
    for (const client of active) faults.clear(client.client_id);
  },

  /**
   * Empties the account and lays the scenario into it: its records (with their history and counts, and its users'
   * drafts of them), coding rules, export mapping, fields and values go; its clients, tokens and faults stay, so a test suite keeps its credentials. NOT_FOUND
   * when the account has no active client.
   */
  async resetAccount(db: Db, accountId: string, scenario: ScenarioName, seed = anySeed()): Promise<ScenarioSummary> {
    const active = (await authService.listClients(db, accountId)).some((c) => c.revoked_at === null);
    if (!active) throw errors.notFound(`Sandbox account ${accountId}`, { account_id: accountId });
    const caller = callerIn(accountId);
    await db.write(async (ex) => {
      // Records first: their codings name the values that go with the fields.
      await accountingService.purgeAccount(ex, caller);
      await codingRulesService.purgeAccount(ex, caller);
      await draftsService.purgeAccount(ex, caller);
      await exportMapping.purgeAccount(ex, caller);
      await fieldsService.deleteAll(ex, caller);
    });
    return applyScenario(db, caller, scenario, seed);
  },

  /** An event of the account on demand (events-on-demand.service.ts); NOT_FOUND when the account is closed. */
  async fireEvent(db: Db, accountId: string, request: FireRequest): Promise<{ id: string; type: string }[]> {
    await requireOpen(db, accountId);
    return fireEvent(db, callerIn(accountId), request);
  },

  /** Time passes for the account's webhook schedules (schedules.service.ts); NOT_FOUND when the account is closed. */
  async advanceTime(db: Db, accountId: string, seconds: number): Promise<{ deliveries: number; endpoints: number }> {
    await requireOpen(db, accountId);
    return db.write((ex) => schedulesService.advance(ex, callerIn(accountId), seconds));
  },

  /**
   * Sets a fault of the client (replacing the one with the same method and route); NOT_FOUND unless the client is
   * active. `route` must name an API route a client's token reaches (`routeExists`: the router's answer), with
   * `method` when given: a fault that could never be met is refused, naming what was wrong.
   */
  async setFault(
    db: Db,
    faults: FaultBook,
    clientId: string,
    spec: FaultSpec,
    routeExists: (method: FaultMethod | null, route: string) => boolean,
  ): Promise<FaultState> {
    await activeClient(db, clientId);
    if (spec.route !== null) {
      if (!spec.route.startsWith('/v') && !spec.route.startsWith('/internal/')) {
        throw errors.invalidField(
          '/route',
          'names an API route (/v1/…, /v3/…, /internal/…): faults meet requests made with a client’s token, never the token request or the sandbox controls',
        );
      }
      if (!routeExists(spec.method, spec.route)) {
        throw errors.invalidField(
          '/route',
          spec.method === null
            ? `is not a route of this service (write it as /openapi.json lists it, e.g. /v3/accounting/records/{id}) (got "${spec.route}")`
            : `is not a ${spec.method} route of this service (write it as /openapi.json lists it) (got "${spec.route}")`,
        );
      }
    }
    return faults.set(clientId, spec);
  },

  /** The client's faults, narrowest first; NOT_FOUND unless the client is active. */
  async listFaults(db: Db, faults: FaultBook, clientId: string): Promise<FaultState[]> {
    await activeClient(db, clientId);
    return faults.list(clientId);
  },

  /** Clears every fault of the client; NOT_FOUND unless the client is active. */
  async clearFault(db: Db, faults: FaultBook, clientId: string): Promise<void> {
    await activeClient(db, clientId);
    faults.clear(clientId);
  },

  /**
   * Expires the client's access tokens now (or the one given, if it is the client's): the next request with one
   * answers 401 invalid_token, as when a token's hour is over, and a client that can fetch another does. NOT_FOUND
   * unless the client is active, or when the token given is not a live token of the client.
   */
  async expireTokens(db: Db, clientId: string, accessToken: string | undefined): Promise<{ expired: number }> {
    await activeClient(db, clientId);
    const expired = await db.write((ex) => grantsService.expireAccessTokens(ex, clientId, accessToken));
    if (accessToken !== undefined && expired === 0) {
      throw errors.notFound('A live access token of this client', { client_id: clientId });
    }
    return { expired };
  },
};

/** NOT_FOUND unless the account has an active client (it is open). */
async function requireOpen(db: Db, accountId: string): Promise<void> {
  const active = (await authService.listClients(db, accountId)).some((c) => c.revoked_at === null);
  if (!active) throw errors.notFound(`Sandbox account ${accountId}`, { account_id: accountId });
}

async function activeClient(db: Db, clientId: string): Promise<void> {
  if (!(await authService.isActiveClient(db.direct, clientId))) {
    throw errors.notFound(`Active client ${clientId}`, { client_id: clientId });
  }
}
