import type { Executor } from '../../db/database.js';
import { auditService, type AuditSource } from '../audit/audit.service.js';
import { parsedRule } from './coding-rules.checks.js';
import type { CodingRulesTable } from './coding-rules.tables.js';

/**
 * What the account's audit log keeps of its coding rules (docs/coding-rules.md, "In the audit log"), written in the
 * transaction of the change itself: who saved, changed, deleted or applied which rule, and what changed.
 */

/** The members of a rule that a change may touch, as the API names them. */
function stateOf(row: CodingRulesTable) {
  return { name: row.name, position: Number(row.position), enabled: row.enabled === 1, ...parsedRule(row) };
}
type State = ReturnType<typeof stateOf>;
const MEMBERS = ['name', 'position', 'enabled', 'conditions', 'actions'] as const satisfies readonly (keyof State)[];

const target = (row: CodingRulesTable) => ({ type: 'coding_rule' as const, id: row.rule_id });

export const codingRulesAudit = {
  async created(ex: Executor, source: AuditSource, row: CodingRulesTable): Promise<void> {
    await auditService.record(ex, source, 'coding_rule.created', target(row), {
      version: Number(row.version),
      ...stateOf(row),
    });
  },

  /** Each member that differs, before and after. */
  async updated(ex: Executor, source: AuditSource, was: CodingRulesTable, now: CodingRulesTable): Promise<void> {
    const before = stateOf(was);
    const after = stateOf(now);
    const changes: Partial<Record<keyof State, { before: unknown; after: unknown }>> = {};
    for (const key of MEMBERS) {
      if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
        changes[key] = { before: before[key], after: after[key] };
      }
    }
    await auditService.record(ex, source, 'coding_rule.updated', target(now), {
      name: now.name,
      version_before: Number(was.version),
      version: Number(now.version),
      changes,
    });
  },

  /** `version`: the version the deletion is kept as (the rule's last saved one plus one). */
  async deleted(ex: Executor, source: AuditSource, row: CodingRulesTable, version: number): Promise<void> {
    await auditService.record(ex, source, 'coding_rule.deleted', target(row), { name: row.name, version });
  },

  /** An apply on demand: the rules (and versions) applied, to which records, and how many it changed. */
  async applied(
    ex: Executor,
    source: AuditSource,
    applied: {
      rules: readonly { rule_id: string; version: number }[];
      accounting_record_ids: readonly string[] | null;
      overwrite: boolean;
      records_changed: number;
    },
  ): Promise<void> {
    await auditService.record(
      ex,
      source,
      'coding_rule.applied',
      { type: 'account', id: source.accountId },
      {
        rules: applied.rules.map((r) => ({ rule_id: r.rule_id, version: r.version })),
        accounting_record_ids: applied.accounting_record_ids,
        overwrite: applied.overwrite,
        records_changed: applied.records_changed,
      },
    );
  },
};
