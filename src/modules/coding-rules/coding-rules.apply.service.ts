import type { Executor } from '../../db/database.js';
import { errors, type ValidationProblem } from '../../errors.js';
import { ruleCodingService } from '../accounting/rule-coding.service.js';
import type { AuditSource } from '../audit/audit.service.js';
import type { Tenant } from '../auth/auth.service.js';
import { codingRulesAudit } from './coding-rules.audit.js';
import { checkShape, checkValues, usable } from './coding-rules.checks.js';
import type { LineDecision, RuleSubject } from './coding-rules.engine.js';
import { codingRulesRepository as repo } from './coding-rules.repository.js';
import type { ApplyDto, ApplyInput, PreviewDto, PreviewInput } from './coding-rules.schemas.js';
import { codingRulesService } from './coding-rules.service.js';

const SAMPLE = 10;

/** A record's changes as a preview shows them: each line's fields before and after, and its memo. */
function sampleOf(subject: RuleSubject, version: number, decided: readonly LineDecision[]) {
  return {
    accounting_record_id: subject.id!,
    version,
    lines: decided.map((d) => ({
      line_id: subject.lines[d.line]!.id!,
      field_values: d.fields.map((f) => ({
        field_id: f.field_id,
        before: f.before,
        after: { svc_id: f.coding.svc_id, value: f.coding.value },
      })),
      ...(d.memo ? { memo: { before: d.memo.before, after: d.memo.after } } : {}),
    })),
  };
}

/** The rules `ruleIds` names, each a rule of the account that is enabled and not broken; 404 / 400 otherwise. */
async function namedRules(ex: Executor, tenant: Tenant, ruleIds: readonly string[]) {
  const rows = new Map((await repo.enabled(ex, tenant.accountId, ruleIds)).map((row) => [row.rule_id, row]));
  const missing: string[] = [];
  for (const id of ruleIds) if (!rows.has(id) && !(await repo.find(ex, tenant.accountId, id))) missing.push(id);
  if (missing.length > 0) {
    throw errors.notFound(`Coding rules ${missing.join(', ')}`, { not_found_rule_ids: missing });
  }
  const rules = await usable(ex, tenant, [...rows.values()]);
  const ok = new Set(rules.map((r) => r.rule_id));
  const problems: ValidationProblem[] = ruleIds.flatMap((id, i) =>
    ok.has(id)
      ? []
      : [{ path: `/rule_ids/${i}`, message: `names rule ${id}, which is ${rows.has(id) ? 'BROKEN' : 'DISABLED'}` }],
  );
  if (problems.length > 0) throw errors.invalidRequest(problems);
  return codingRulesService.usableRules(ex, tenant, ruleIds);
}

/**
 * Rules on existing records: a preview of an unsaved rule (nothing written), and applying saved rules to the
 * account's records under review (PREPARE, REVIEW) through accounting's service.
 */
export const codingRulesApplyService = {
  /** What the rule would change on its own, applied now: how many records, and a sample of them. */
  async preview(ex: Executor, tenant: Tenant, input: PreviewInput): Promise<PreviewDto> {
    const { conditions, actions } = input.rule;
    checkShape(conditions, actions, '/rule');
    await checkValues(ex, tenant, input.rule, '/rule');
    const candidate = {
      account_id: tenant.accountId,
      rule_id: 'preview',
      name: 'preview',
      position: 0,
      enabled: 1,
      version: 0,
      conditions_json: JSON.stringify(conditions),
      actions_json: JSON.stringify(actions),
      created_at: 0,
      updated_at: 0,
      created_by_type: 'system',
      created_by_id: 'preview',
      updated_by_type: 'system',
      updated_by_id: 'preview',
    };
    const rules = await usable(ex, tenant, [candidate]);
    // Checked just above, in this transaction: the candidate's values are usable.
    if (rules.length !== 1) throw errors.internal();
    const overwrite = input.overwrite ?? false;
    let count = 0;
    const sample: PreviewDto['sample'] = [];
    for await (const page of ruleCodingService.editableSubjects(ex, tenant, null)) {
      const subjects = page.map((p) => p.subject);
      const decisions = await codingRulesService.decideFor(ex, tenant, rules, subjects, overwrite);
      decisions.forEach((decided, i) => {
        if (decided.length === 0) return;
        count++;
        if (sample.length < SAMPLE) sample.push(sampleOf(subjects[i]!, page[i]!.version, decided));
      });
    }
    return { records_changed: count, sample };
  },

  /** Applies the account's enabled rules (or those named) to its records under review, all or nothing. */
  async apply(ex: Executor, caller: AuditSource, input: ApplyInput): Promise<ApplyDto> {
    const rules = input.rule_ids
      ? await namedRules(ex, caller, input.rule_ids)
      : await codingRulesService.usableRules(ex, caller, null);
    const overwrite = input.overwrite ?? false;
    // No rule and no record named: nothing to read. Records named are checked even so (404 for another account's).
    const ids =
      rules.length === 0 && !input.accounting_record_ids
        ? []
        : await ruleCodingService.apply(ex, caller, input.accounting_record_ids ?? null, (subjects) =>
            codingRulesService.decideFor(ex, caller, rules, subjects, overwrite),
          );
    await codingRulesAudit.applied(ex, caller, {
      rules,
      accounting_record_ids: input.accounting_record_ids ?? null,
      overwrite,
      records_changed: ids.length,
    });
    return { records_changed: ids.length, updated_accounting_record_ids: ids };
  },
};
