import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { ALL_SCOPES, authService, type Caller, type ClientCredentials } from '../auth/auth.service.js';
import { accountingService } from '../accounting/accounting.service.js';
import { codingRulesService } from '../coding-rules/coding-rules.service.js';
import { fieldsService } from '../fields/fields.service.js';
import { schedulesService } from '../webhooks/schedules.service.js';
import { fireEvent, type FireRequest } from './events-on-demand.service.js';
import type { FaultBook, FaultSpec, FaultState } from './faults.service.js';
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
   * Empties the account and lays the scenario into it: its records (with their history and counts), coding rules,
   * fields and values go; its clients, tokens and faults stay, so a test suite keeps its credentials. NOT_FOUND
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

  /** Sets the client's fault (replacing any); NOT_FOUND unless the client is active. */
  async setFault(db: Db, faults: FaultBook, clientId: string, spec: FaultSpec): Promise<FaultState> {
    await activeClient(db, clientId);
    return faults.set(clientId, spec);
  },

  /** Clears the client's fault; NOT_FOUND unless the client is active. */
  async clearFault(db: Db, faults: FaultBook, clientId: string): Promise<void> {
    await activeClient(db, clientId);
    faults.clear(clientId);
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
