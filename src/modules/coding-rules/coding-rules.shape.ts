import type { Static } from 'typebox';
import type { Executor } from '../../db/database.js';
import { microsToIso } from '../../lib/clock.js';
import type { Caller, Tenant } from '../auth/auth.service.js';
import { userNamesService } from '../users/user-names.service.js';
import { parsedRule, problemsOf, type RuleProblem } from './coding-rules.checks.js';
import type { CodingRuleDto, RuleVersion } from './coding-rules.schemas.js';
import type { CodingRulesTable, CodingRuleVersionsTable, RuleChange } from './coding-rules.tables.js';

/** Stored rules and versions as answered, and a rule's row as its version keeps it. */

type Actor = CodingRuleDto['created_by'];
/** user id → name, of the account's users among the actors answered. */
type Names = ReadonlyMap<string, string>;

function actorOf(type: string, id: string, names: Names): Actor {
  const actor: Actor = { type: type === 'client' || type === 'user' ? type : 'system', id };
  const name = actor.type === 'user' ? names.get(id) : undefined;
  return name === undefined ? actor : { ...actor, name };
}

/**
 * The names of the users who acted on these rules or versions, read at each answer (what is stored is their id; a
 * name shown is the user's name now, as a record's history shows it).
 */
export function actorNames(
  ex: Executor,
  tenant: Tenant,
  actors: readonly { type: string; id: string }[],
): Promise<Map<string, string>> {
  const ids = actors.filter((a) => a.type === 'user').map((a) => a.id);
  return userNamesService.namesOf(ex, tenant.accountId, ids);
}

const actorsOf = (rows: readonly CodingRulesTable[]) =>
  rows.flatMap((row) => [
    { type: row.created_by_type, id: row.created_by_id },
    { type: row.updated_by_type, id: row.updated_by_id },
  ]);

/** A stored rule as answered, with its status computed from its values' state now. */
export function ruleRowToRule(row: CodingRulesTable, problems: RuleProblem[], names: Names): CodingRuleDto {
  const enabled = row.enabled === 1;
  return {
    id: row.rule_id,
    name: row.name,
    position: Number(row.position),
    enabled,
    status: problems.length > 0 ? 'BROKEN' : enabled ? 'ACTIVE' : 'DISABLED',
    problems,
    version: Number(row.version),
    ...parsedRule(row),
    created_at: microsToIso(Number(row.created_at)),
    updated_at: microsToIso(Number(row.updated_at)),
    created_by: actorOf(row.created_by_type, row.created_by_id, names),
    updated_by: actorOf(row.updated_by_type, row.updated_by_id, names),
  };
}

/** Rules as answered, their status from one lookup of every value they set, their actors named. */
export async function answered(ex: Executor, tenant: Tenant, rows: CodingRulesTable[]): Promise<CodingRuleDto[]> {
  const problems = await problemsOf(
    ex,
    tenant,
    rows.map((row) => parsedRule(row)),
  );
  const names = await actorNames(ex, tenant, actorsOf(rows));
  return rows.map((row, i) => ruleRowToRule(row, problems[i]!, names));
}

/** A rule just created as answered: its values checked as it was saved, so none is a problem. */
export async function created(ex: Executor, tenant: Tenant, row: CodingRulesTable): Promise<CodingRuleDto> {
  return ruleRowToRule(row, [], await actorNames(ex, tenant, actorsOf([row])));
}

export function versionRow(
  row: CodingRulesTable,
  change: RuleChange,
  caller: Caller,
  at: number,
): CodingRuleVersionsTable {
  return {
    account_id: row.account_id,
    rule_id: row.rule_id,
    version: row.version,
    change,
    name: row.name,
    position: row.position,
    enabled: row.enabled,
    conditions_json: row.conditions_json,
    actions_json: row.actions_json,
    changed_at: at,
    changed_by_type: caller.actor.type,
    changed_by_id: caller.actor.id,
  };
}

/** A kept version as answered (`names`: actorNames of the page's versions). */
export function versionRowToVersion(v: CodingRuleVersionsTable, names: Names): Static<typeof RuleVersion> {
  return {
    version: Number(v.version),
    change: v.change,
    name: v.name,
    position: Number(v.position),
    enabled: v.enabled === 1,
    ...parsedRule(v),
    changed_at: microsToIso(Number(v.changed_at)),
    changed_by: actorOf(v.changed_by_type, v.changed_by_id, names),
  };
}
