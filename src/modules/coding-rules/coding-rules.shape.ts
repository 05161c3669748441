import type { Static } from 'typebox';
import type { Executor } from '../../db/database.js';
import { microsToIso } from '../../lib/clock.js';
import type { Caller, Tenant } from '../auth/auth.service.js';
import { parsedRule, problemsOf, type RuleProblem } from './coding-rules.checks.js';
import type { CodingRuleDto, RuleVersion } from './coding-rules.schemas.js';
import type { CodingRulesTable, CodingRuleVersionsTable, RuleChange } from './coding-rules.tables.js';

/** Stored rules and versions as answered, and a rule's row as its version keeps it. */

type Actor = CodingRuleDto['created_by'];
const actorOf = (type: string, id: string): Actor => ({
  type: type === 'client' || type === 'user' ? type : 'system',
  id,
});

/** A stored rule as answered, with its status computed from its values' state now. */
export function ruleRowToRule(row: CodingRulesTable, problems: RuleProblem[]): CodingRuleDto {
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
    created_by: actorOf(row.created_by_type, row.created_by_id),
    updated_by: actorOf(row.updated_by_type, row.updated_by_id),
  };
}

/** Rules as answered, their status from one lookup of every value they set. */
export async function answered(ex: Executor, tenant: Tenant, rows: CodingRulesTable[]): Promise<CodingRuleDto[]> {
  const problems = await problemsOf(
    ex,
    tenant,
    rows.map((row) => parsedRule(row)),
  );
  return rows.map((row, i) => ruleRowToRule(row, problems[i]!));
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

/** A kept version as answered. */
export function versionRowToVersion(v: CodingRuleVersionsTable): Static<typeof RuleVersion> {
  return {
    version: Number(v.version),
    change: v.change,
    name: v.name,
    position: Number(v.position),
    enabled: v.enabled === 1,
    ...parsedRule(v),
    changed_at: microsToIso(Number(v.changed_at)),
    changed_by: actorOf(v.changed_by_type, v.changed_by_id),
  };
}
