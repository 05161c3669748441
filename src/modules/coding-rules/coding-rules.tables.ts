/** Who saved a rule: an API client, a console user, or the service itself. */
export type ActorType = 'client' | 'user' | 'system';

/** An account's coding rule as it is now (docs/coding-rules.md); conditions and actions in the API's form. */
export interface CodingRulesTable {
  account_id: string;
  rule_id: string;
  name: string;
  /** Precedence: lower first; ties in creation order (rule_id). */
  position: number;
  /** 1 or 0 */
  enabled: number;
  version: number;
  conditions_json: string;
  actions_json: string;
  /** microseconds */
  created_at: number;
  updated_at: number;
  created_by_type: string;
  created_by_id: string;
  updated_by_type: string;
  updated_by_id: string;
}

export const RULE_CHANGES = ['CREATED', 'UPDATED', 'DELETED'] as const;
export type RuleChange = (typeof RULE_CHANGES)[number];

/** Every version of a rule as saved, kept after the rule is deleted (records' histories name versions). */
export interface CodingRuleVersionsTable {
  account_id: string;
  rule_id: string;
  version: number;
  change: RuleChange;
  name: string;
  position: number;
  enabled: number;
  conditions_json: string;
  actions_json: string;
  changed_at: number;
  changed_by_type: string;
  changed_by_id: string;
}

/** A line value a rule set: while the line still holds it, a rule may replace it; a person's value it never does. */
export interface CodingRuleLineValuesTable {
  account_id: string;
  record_id: string;
  line_id: string;
  field_id: string;
  value_id: string;
  rule_id: string;
  rule_version: number;
  applied_at: number;
}

declare module '../../db/database.js' {
  interface Database {
    coding_rules: CodingRulesTable;
    coding_rule_versions: CodingRuleVersionsTable;
    coding_rule_line_values: CodingRuleLineValuesTable;
  }
}
