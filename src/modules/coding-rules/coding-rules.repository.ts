import type { Executor } from '../../db/database.js';
import type { CodingRuleLineValuesTable, CodingRulesTable, CodingRuleVersionsTable } from './coding-rules.tables.js';

const CHUNK = 500;

export const codingRulesRepository = {
  /** Deletes the account's rules, their versions and what they set (a sandbox reset). */
  async purgeAccount(ex: Executor, accountId: string): Promise<void> {
    for (const table of ['coding_rule_line_values', 'coding_rule_versions', 'coding_rules'] as const) {
      await ex.deleteFrom(table).where('account_id', '=', accountId).execute();
    }
  },

  async insert(ex: Executor, row: CodingRulesTable): Promise<void> {
    await ex.insertInto('coding_rules').values(row).execute();
  },

  async find(ex: Executor, accountId: string, ruleId: string): Promise<CodingRulesTable | undefined> {
    return ex
      .selectFrom('coding_rules')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('rule_id', '=', ruleId)
      .executeTakeFirst();
  },

  /** The greatest position of the account's rules; -1 when it has none. */
  async lastPosition(ex: Executor, accountId: string): Promise<number> {
    const row = await ex
      .selectFrom('coding_rules')
      .select((eb) => eb.fn.max('position').as('last'))
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row?.last === null || row?.last === undefined ? -1 : Number(row.last);
  },

  /** Replaces the rule if it is still at `version`; false when another change came first. */
  async update(ex: Executor, row: CodingRulesTable, version: number): Promise<boolean> {
    const { account_id, rule_id, ...rest } = row;
    const result = await ex
      .updateTable('coding_rules')
      .set(rest)
      .where('account_id', '=', account_id)
      .where('rule_id', '=', rule_id)
      .where('version', '=', version)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  },

  async delete(ex: Executor, accountId: string, ruleId: string, version: number): Promise<boolean> {
    const result = await ex
      .deleteFrom('coding_rules')
      .where('account_id', '=', accountId)
      .where('rule_id', '=', ruleId)
      .where('version', '=', version)
      .executeTakeFirst();
    return result.numDeletedRows === 1n;
  },

  /** A page in precedence order (position, rule_id), after `after`; fetches limit + 1. */
  async page(
    ex: Executor,
    accountId: string,
    after: { position: number; ruleId: string } | null,
    limit: number,
  ): Promise<CodingRulesTable[]> {
    let q = ex.selectFrom('coding_rules').selectAll().where('account_id', '=', accountId);
    if (after) {
      q = q.where((eb) =>
        eb.or([
          eb('position', '>', after.position),
          eb.and([eb('position', '=', after.position), eb('rule_id', '>', after.ruleId)]),
        ]),
      );
    }
    return q
      .orderBy('position')
      .orderBy('rule_id')
      .limit(limit + 1)
      .execute();
  },

  /** The account's enabled rules in precedence order (all of them when `ruleIds` is null, else those). */
  async enabled(ex: Executor, accountId: string, ruleIds: readonly string[] | null): Promise<CodingRulesTable[]> {
    let q = ex.selectFrom('coding_rules').selectAll().where('account_id', '=', accountId).where('enabled', '=', 1);
    if (ruleIds) q = q.where('rule_id', 'in', ruleIds.length > 0 ? ruleIds : ['']);
    return q.orderBy('position').orderBy('rule_id').execute();
  },

  async insertVersion(ex: Executor, row: CodingRuleVersionsTable): Promise<void> {
    await ex.insertInto('coding_rule_versions').values(row).execute();
  },

  /** A rule's versions after `afterVersion`, oldest first; fetches limit + 1. */
  async versions(
    ex: Executor,
    accountId: string,
    ruleId: string,
    afterVersion: number,
    limit: number,
  ): Promise<CodingRuleVersionsTable[]> {
    return ex
      .selectFrom('coding_rule_versions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('rule_id', '=', ruleId)
      .where('version', '>', afterVersion)
      .orderBy('version')
      .limit(limit + 1)
      .execute();
  },

  /** The values rules set on the lines of these records, as they were set. */
  async lineValues(
    ex: Executor,
    accountId: string,
    recordIds: readonly string[],
  ): Promise<CodingRuleLineValuesTable[]> {
    const out: CodingRuleLineValuesTable[] = [];
    for (let i = 0; i < recordIds.length; i += CHUNK) {
      out.push(
        ...(await ex
          .selectFrom('coding_rule_line_values')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('record_id', 'in', recordIds.slice(i, i + CHUNK))
          .execute()),
      );
    }
    return out;
  },

  /** Keeps which rule set each value (one row per record, line and field: the latest). */
  async upsertLineValues(ex: Executor, rows: readonly CodingRuleLineValuesTable[]): Promise<void> {
    // 8 columns × 200 rows: far below both dialects' bound-parameter limits.
    for (let i = 0; i < rows.length; i += 200) {
      await ex
        .insertInto('coding_rule_line_values')
        .values(rows.slice(i, i + 200))
        .onConflict((oc) =>
          oc.columns(['account_id', 'record_id', 'line_id', 'field_id']).doUpdateSet((eb) => ({
            value_id: eb.ref('excluded.value_id'),
            rule_id: eb.ref('excluded.rule_id'),
            rule_version: eb.ref('excluded.rule_version'),
            applied_at: eb.ref('excluded.applied_at'),
          })),
        )
        .execute();
    }
  },
};
