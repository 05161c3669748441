import type { Executor } from '../../db/database.js';
import { errors, type ValidationProblem } from '../../errors.js';
import { sourceTypeOf, toMinor, type RecordType } from '../accounting/accounting.service.js';
import type { Tenant } from '../auth/auth.service.js';
import { fieldValuesService, type CodingLookup } from '../field-values/field-values.service.js';
import { fieldsService } from '../fields/fields.service.js';
import type { UsableRule } from './coding-rules.engine.js';
import type { RuleActionsInput, RuleConditionsInput } from './coding-rules.schemas.js';
import type { CodingRulesTable } from './coding-rules.tables.js';

/**
 * A rule's validity, computed here alone: what a rule may say (checked when it is saved and previewed), and
 * whether the values it sets are still usable (a value deleted or disabled since makes it BROKEN: it is shown so,
 * and applies nowhere, never in part).
 */

/** Why a saved rule cannot apply: one entry per value it sets that is deleted, disabled, or of a disabled field. */
export interface RuleProblem extends ValidationProblem {
  reason: string;
  field_id: string;
  svc_id: string;
  [member: string]: unknown;
}

/** The amount bound in minor units, or the problem with it. */
function boundOf(amount: number | undefined, currency: string, path: string, problems: ValidationProblem[]) {
  if (amount === undefined) return null;
  const minor = toMinor({ amount, currency });
  if (typeof minor === 'number') return minor;
  problems.push({ path, message: minor.message });
  return null;
}

/** The amount condition's bounds in minor units (checked when saved: a stored rule's are valid). */
export function boundsOf(c: RuleConditionsInput, at = '/conditions', problems: ValidationProblem[] = []) {
  if (!c.amount) return { minMinor: null, maxMinor: null };
  const currency = toMinor({ amount: 0, currency: c.amount.currency });
  if (typeof currency !== 'number') {
    problems.push({ path: `${at}/amount/currency`, message: currency.message });
    return { minMinor: null, maxMinor: null };
  }
  const minMinor = boundOf(c.amount.min, c.amount.currency, `${at}/amount/min`, problems);
  const maxMinor = boundOf(c.amount.max, c.amount.currency, `${at}/amount/max`, problems);
  return { minMinor, maxMinor };
}

/** 400 INVALID_REQUEST naming every condition and action that cannot be (`at`: where the rule is in the body). */
export function checkShape(conditions: RuleConditionsInput, actions: RuleActionsInput, at = ''): void {
  const problems: ValidationProblem[] = [];
  if (Object.keys(conditions).length === 0) {
    problems.push({
      path: `${at}/conditions`,
      message: 'must hold at least one condition: a rule that matches every record is not allowed',
    });
  }
  if (conditions.record_types && conditions.source_types) {
    const sources = conditions.source_types;
    conditions.record_types.forEach((type, i) => {
      const source = sourceTypeOf(type as RecordType);
      if (!sources.includes(source)) {
        problems.push({
          path: `${at}/conditions/record_types/${i}`,
          message: `is a ${source} type, and source_types allows only ${sources.join(', ')}: no record can match`,
        });
      }
    });
  }
  if (conditions.merchant_category_codes) {
    const cards = (conditions.source_types ?? ['CARD']).includes('CARD');
    const cardTypes = (conditions.record_types ?? []).filter((type) => sourceTypeOf(type as RecordType) === 'CARD');
    if (!cards || (conditions.record_types && cardTypes.length === 0)) {
      problems.push({
        path: `${at}/conditions/merchant_category_codes`,
        message:
          'only card records carry a merchant category code, and the rule matches no card type: no record can match',
      });
    }
  }
  const matched = new Set<string>();
  conditions.line_field_values?.forEach((entry, e) => {
    if (matched.has(entry.field_id)) {
      problems.push({
        path: `${at}/conditions/line_field_values/${e}/field_id`,
        message: `names the field ${entry.field_id} a second time: one entry per field (list its values together)`,
      });
    }
    matched.add(entry.field_id);
  });
  const { minMinor, maxMinor } = boundsOf(conditions, `${at}/conditions`, problems);
  if (minMinor !== null && maxMinor !== null && minMinor > maxMinor) {
    problems.push({
      path: `${at}/conditions/amount`,
      message: `has min ${conditions.amount!.min} greater than max ${conditions.amount!.max}: no amount can match`,
    });
  }
  if (actions.field_values.length === 0 && actions.memo === undefined) {
    problems.push({ path: `${at}/actions`, message: 'must set at least one field value or the memo' });
  }
  const fields = new Set<string>();
  actions.field_values.forEach((ref, k) => {
    if (fields.has(ref.field_id)) {
      problems.push({
        path: `${at}/actions/field_values/${k}/field_id`,
        message: `sets the field ${ref.field_id} a second time: one value per field`,
      });
    }
    fields.add(ref.field_id);
  });
  if (problems.length > 0) throw errors.invalidRequest(problems);
}

/** Why a looked-up value cannot be set, if it cannot. */
function problemOf(found: CodingLookup, path: string, ref: { field_id: string; svc_id: string }): RuleProblem | null {
  if ('problem' in found) {
    return { path, ...ref, reason: 'NOT_FOUND', message: 'is not a value of the account (unknown or deleted)' };
  }
  const { coding } = found;
  if (coding.field_is_disabled) {
    return { path, ...ref, reason: 'FIELD_DISABLED', message: `is a value of the disabled field ${coding.field_name}` };
  }
  if (coding.is_disabled) {
    return {
      path,
      ...ref,
      reason: 'VALUE_DISABLED',
      message: `is the disabled value "${coding.value}" of ${coding.field_name}`,
    };
  }
  return null;
}

/** What a rule names of the account's values: those it sets, and those its conditions match lines on. */
export interface RuleValues {
  conditions: RuleConditionsInput;
  actions: RuleActionsInput;
}

type Ref = { path: string; ref: { field_id: string; svc_id: string } };

/** Each value a rule's conditions match lines on, with where in the rule it is. */
function conditionRefs(conditions: RuleConditionsInput, at: string): Ref[] {
  return (conditions.line_field_values ?? []).flatMap((entry, e) =>
    entry.svc_ids.map((svc_id, k) => ({
      path: `${at}/conditions/line_field_values/${e}/svc_ids/${k}`,
      ref: { field_id: entry.field_id, svc_id },
    })),
  );
}

/** Each value a rule names, with where in the rule it is. */
function refsOf(rule: RuleValues, at: string): Ref[] {
  return [
    ...conditionRefs(rule.conditions, at),
    ...rule.actions.field_values.map((ref, k) => ({ path: `${at}/actions/field_values/${k}`, ref })),
  ];
}

/** The problems of each rule's values (conditions' and actions'), in order (one lookup for all). */
export async function problemsOf(
  ex: Executor,
  tenant: Tenant,
  rules: readonly RuleValues[],
  at = '',
): Promise<RuleProblem[][]> {
  const refs = rules.map((rule) => refsOf(rule, at));
  const found = await fieldValuesService.lookupCodings(
    ex,
    tenant,
    refs.flatMap((r) => r.map((x) => x.ref)),
  );
  let i = 0;
  return refs.map((r) => r.flatMap(({ path, ref }) => problemOf(found[i++]!, path, ref) ?? []));
}

/**
 * Refuses a value the rule would set or match lines on that cannot be, each problem pointed at and with its reason: 404 NOT_FOUND
 * for a field (FIELD_NOT_FOUND) or value (NOT_FOUND: unknown or deleted) the account does not have; else 422
 * INVALID_CODING for a value of another field (VALUE_OF_ANOTHER_FIELD), a disabled value or a value of a disabled
 * field (VALUE_DISABLED, FIELD_DISABLED).
 */
export async function checkValues(ex: Executor, tenant: Tenant, rule: RuleValues, at = ''): Promise<void> {
  const [problems] = await problemsOf(ex, tenant, [rule], at);
  if (!problems || problems.length === 0) return;
  const missing = problems.filter((p) => p.reason === 'NOT_FOUND');
  if (missing.length > 0) {
    const fields = new Set(
      (await fieldsService.findMany(ex, tenant, [...new Set(missing.map((p) => p.field_id))])).map((f) => f.svc_id),
    );
    const owners = await fieldValuesService.fieldsOfValues(
      ex,
      tenant,
      missing.map((p) => p.svc_id),
    );
    for (const p of missing) {
      const owner = owners.get(p.svc_id);
      if (!fields.has(p.field_id)) {
        Object.assign(p, {
          reason: 'FIELD_NOT_FOUND',
          message: `names ${p.field_id}, which is not a field of the account`,
        });
      } else if (owner !== undefined && owner !== p.field_id) {
        Object.assign(p, {
          reason: 'VALUE_OF_ANOTHER_FIELD',
          message: `names a value of the field ${owner}, not of ${p.field_id}`,
          value_field_id: owner,
        });
      }
    }
  }
  // What the account does not have is absent, as everywhere (404), before what cannot be used (422).
  const absent = problems.filter((p) => p.reason === 'NOT_FOUND' || p.reason === 'FIELD_NOT_FOUND');
  if (absent.length > 0) throw errors.ruleValuesNotFound(absent);
  throw errors.invalidCoding(problems);
}

/** A stored rule's conditions and actions (written from the checked API form). */
export function parsedRule(row: Pick<CodingRulesTable, 'conditions_json' | 'actions_json'>): {
  conditions: RuleConditionsInput;
  actions: RuleActionsInput;
} {
  const conditions: RuleConditionsInput = JSON.parse(row.conditions_json);
  const actions: RuleActionsInput = JSON.parse(row.actions_json);
  return { conditions, actions };
}

/** The rules ready to apply, in the order given: those whose every value is usable (the broken are left out). */
export async function usable(ex: Executor, tenant: Tenant, rows: readonly CodingRulesTable[]): Promise<UsableRule[]> {
  if (rows.length === 0) return [];
  const parsed = rows.map(parsedRule);
  const refs = parsed.map((rule) => ({
    conditions: conditionRefs(rule.conditions, ''),
    actions: rule.actions.field_values,
  }));
  const found = await fieldValuesService.lookupCodings(
    ex,
    tenant,
    refs.flatMap((r) => [...r.conditions.map((c) => c.ref), ...r.actions]),
  );
  let i = 0;
  return rows.flatMap((row, r) => {
    const { conditions, actions } = parsed[r]!;
    const matched = refs[r]!.conditions.map(({ ref }) => ({ found: found[i++]!, ref }));
    const codings = refs[r]!.actions.map((ref) => ({ found: found[i++]!, ref }));
    if ([...matched, ...codings].some((c) => problemOf(c.found, '', c.ref) !== null)) return [];
    return [
      {
        rule_id: row.rule_id,
        version: Number(row.version),
        conditions,
        ...boundsOf(conditions),
        codings: codings.map((c) => ('coding' in c.found ? c.found.coding : null)).filter((c) => c !== null),
        memo: actions.memo ?? null,
      },
    ];
  });
}
