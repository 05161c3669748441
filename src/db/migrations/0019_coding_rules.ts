import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * Coding rules (docs/coding-rules.md): the account's rules, ordered by (position, rule_id); every version of each
 * rule as it was saved, with who saved it (kept after a rule is deleted, since records' histories name rule
 * versions); and which line values a rule set (record, line, field → value, rule, version), so that a rule applied
 * again never overwrites a value a person set. Conditions and actions are JSON text in the API's form.
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);
  await db.schema
    .createTable('coding_rules')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('rule_id', key, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('conditions_json', 'text', (c) => c.notNull())
    .addColumn('actions_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('created_by_type', 'text', (c) => c.notNull())
    .addColumn('created_by_id', key, (c) => c.notNull())
    .addColumn('updated_by_type', 'text', (c) => c.notNull())
    .addColumn('updated_by_id', key, (c) => c.notNull())
    .addPrimaryKeyConstraint('coding_rules_pk', ['account_id', 'rule_id'])
    .execute();
  await db.schema
    .createIndex('coding_rules_order_idx')
    .on('coding_rules')
    .columns(['account_id', 'position', 'rule_id'])
    .execute();
  await db.schema
    .createTable('coding_rule_versions')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('rule_id', key, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('change', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('conditions_json', 'text', (c) => c.notNull())
    .addColumn('actions_json', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .addColumn('changed_by_type', 'text', (c) => c.notNull())
    .addColumn('changed_by_id', key, (c) => c.notNull())
    .addPrimaryKeyConstraint('coding_rule_versions_pk', ['account_id', 'rule_id', 'version'])
    .execute();
  await db.schema
    .createTable('coding_rule_line_values')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('record_id', key, (c) => c.notNull())
    .addColumn('line_id', key, (c) => c.notNull())
    .addColumn('field_id', key, (c) => c.notNull())
    .addColumn('value_id', key, (c) => c.notNull())
    .addColumn('rule_id', key, (c) => c.notNull())
    .addColumn('rule_version', 'integer', (c) => c.notNull())
    .addColumn('applied_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('coding_rule_line_values_pk', ['account_id', 'record_id', 'line_id', 'field_id'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: 'Creates coding rules, their versions and line values; nothing existing is touched.',
};
