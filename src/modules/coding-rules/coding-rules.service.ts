import type { Static } from 'typebox';
import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { nowMicros } from '../../lib/clock.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { pageLinks, pageOf, type PageLinks } from '../../lib/pagination.js';
import type { AuditSource } from '../audit/audit.service.js';
import type { AuthContext, Tenant } from '../auth/auth.service.js';
import { codingRulesAudit } from './coding-rules.audit.js';
import { checkShape, checkValues, parsedRule, usable } from './coding-rules.checks.js';
import { decide, type LineDecision, type RuleSubject, type UsableRule } from './coding-rules.engine.js';
import { codingRulesRepository as repo } from './coding-rules.repository.js';
import type { CodingRuleDto, CreateRuleInput, RuleVersion, UpdateRuleInput } from './coding-rules.schemas.js';
import { actorNames, answered, created, versionRow, versionRowToVersion } from './coding-rules.shape.js';
import type { CodingRulesTable } from './coding-rules.tables.js';

export type { FieldChange, LineDecision, RuleSubject, ShownValue, UsableRule } from './coding-rules.engine.js';

export const RULE_ID_PREFIX = 'crule';

const notFound = (ruleId: string) => errors.notFound(`Coding rule ${ruleId}`, { rule_id: ruleId });

async function requireRule(ex: Executor, tenant: Tenant, ruleId: string): Promise<CodingRulesTable> {
  const row = await repo.find(ex, tenant.accountId, ruleId);
  if (!row) throw notFound(ruleId);
  return row;
}

/**
 * Coding rules (docs/coding-rules.md): the account's rules, each saved as a new version with who saved it and when;
 * and what accounting asks of them at ingestion (the codings the rules give new records, and keeping which rule set
 * each value). Preview and apply on demand are coding-rules.apply.service.ts.
 */
export const codingRulesService = {
  /** Deletes every rule of the account with its versions and what they set (sandbox reset). */
  async purgeAccount(ex: Executor, tenant: Tenant): Promise<void> {
    await repo.purgeAccount(ex, tenant.accountId);
  },

  async create(ex: Executor, caller: AuditSource, input: CreateRuleInput): Promise<CodingRuleDto> {
    checkShape(input.conditions, input.actions);
    await checkValues(ex, caller, input);
    const now = nowMicros();
    const row: CodingRulesTable = {
      account_id: caller.accountId,
      rule_id: newId(RULE_ID_PREFIX),
      name: input.name,
      position: input.position ?? (await repo.lastPosition(ex, caller.accountId)) + 1,
      enabled: input.enabled === false ? 0 : 1,
      version: 1,
      conditions_json: JSON.stringify(input.conditions),
      actions_json: JSON.stringify(input.actions),
      created_at: now,
      updated_at: now,
      created_by_type: caller.actor.type,
      created_by_id: caller.actor.id,
      updated_by_type: caller.actor.type,
      updated_by_id: caller.actor.id,
    };
    await repo.insert(ex, row);
    await repo.insertVersion(ex, versionRow(row, 'CREATED', caller, now));
    await codingRulesAudit.created(ex, caller, row);
    return created(ex, caller, row);
  },

  async get(ex: Executor, tenant: Tenant, ruleId: string): Promise<CodingRuleDto> {
    return (await answered(ex, tenant, [await requireRule(ex, tenant, ruleId)]))[0]!;
  },

  /** The account's rules in precedence order. */
  async list(
    ex: Executor,
    auth: AuthContext,
    query: { cursor?: string; limit: number },
  ): Promise<{ items: CodingRuleDto[] } & PageLinks> {
    let after = null;
    if (query.cursor) {
      const [position, ruleId] = openCursor(auth.cursorKey, 'coding_rules', {}, query.cursor);
      if (typeof position !== 'number' || typeof ruleId !== 'string') throw errors.invalidCursor();
      after = { position, ruleId };
    }
    const page = pageOf(await repo.page(ex, auth.accountId, after, query.limit), query.limit);
    return {
      items: await answered(ex, auth, page.items),
      ...pageLinks(page, (last) =>
        sealCursor(auth.cursorKey, 'coding_rules', {}, [Number(last.position), last.rule_id]),
      ),
    };
  },

  /** Every rule of the account in precedence order, without a cursor (the operator's `svc rules list`). */
  async listAll(ex: Executor, tenant: Tenant): Promise<CodingRuleDto[]> {
    const rows: CodingRulesTable[] = [];
    for (;;) {
      const last = rows.at(-1);
      const after = last ? { position: Number(last.position), ruleId: last.rule_id } : null;
      // The repository reads one row past the limit: there are more when it is there.
      const page = await repo.page(ex, tenant.accountId, after, 1000);
      rows.push(...page.slice(0, 1000));
      if (page.length <= 1000) return answered(ex, tenant, rows);
    }
  },

  /**
   * Changes what is given, as a new version (409 VERSION_CONFLICT when `version` is not the current one); nothing
   * given that differs: the rule as it is, its version unchanged. New conditions and actions are checked as at create.
   */
  async update(ex: Executor, caller: AuditSource, ruleId: string, input: UpdateRuleInput): Promise<CodingRuleDto> {
    const row = await requireRule(ex, caller, ruleId);
    const current = Number(row.version);
    if (input.version !== current) throw errors.ruleVersionConflict(ruleId, input.version, current);
    const was = parsedRule(row);
    if (input.conditions || input.actions) {
      checkShape(input.conditions ?? was.conditions, input.actions ?? was.actions);
    }
    // What is given is checked: values kept from the current version were checked when saved (and a value
    // disabled since shows as BROKEN rather than refusing an unrelated change).
    if (input.conditions || input.actions) {
      await checkValues(ex, caller, {
        conditions: input.conditions ?? {},
        actions: input.actions ?? { field_values: [] },
      });
    }
    const next: CodingRulesTable = {
      ...row,
      name: input.name ?? row.name,
      position: input.position ?? Number(row.position),
      enabled: input.enabled === undefined ? row.enabled : input.enabled ? 1 : 0,
      conditions_json: input.conditions ? JSON.stringify(input.conditions) : row.conditions_json,
      actions_json: input.actions ? JSON.stringify(input.actions) : row.actions_json,
    };
    const same = (['name', 'position', 'enabled', 'conditions_json', 'actions_json'] as const).every(
      (k) => String(next[k]) === String(row[k]),
    );
    if (same) return codingRulesService.get(ex, caller, ruleId);
    const now = nowMicros();
    Object.assign(next, {
      version: current + 1,
      updated_at: now,
      updated_by_type: caller.actor.type,
      updated_by_id: caller.actor.id,
    });
    if (!(await repo.update(ex, next, current))) throw errors.ruleVersionConflict(ruleId, input.version, current + 1);
    await repo.insertVersion(ex, versionRow(next, 'UPDATED', caller, now));
    await codingRulesAudit.updated(ex, caller, row, next);
    return (await answered(ex, caller, [next]))[0]!;
  },

  /** Deletes the rule; its versions stay (records' histories name them), the last one saying who deleted it. */
  async delete(ex: Executor, caller: AuditSource, ruleId: string): Promise<Record<string, never>> {
    const row = await requireRule(ex, caller, ruleId);
    const version = Number(row.version);
    if (!(await repo.delete(ex, caller.accountId, ruleId, version))) throw notFound(ruleId);
    await repo.insertVersion(ex, versionRow({ ...row, version: version + 1 }, 'DELETED', caller, nowMicros()));
    await codingRulesAudit.deleted(ex, caller, row, version + 1);
    return {};
  },

  /** A rule's versions, oldest first (a deleted rule's too). */
  async versions(
    ex: Executor,
    auth: AuthContext,
    ruleId: string,
    query: { cursor?: string; limit: number },
  ): Promise<{ items: Static<typeof RuleVersion>[] } & PageLinks> {
    const binding = { rule_id: ruleId };
    let after = 0;
    if (query.cursor) {
      const [version] = openCursor(auth.cursorKey, 'coding_rule_versions', binding, query.cursor);
      if (typeof version !== 'number') throw errors.invalidCursor();
      after = version;
    }
    const rows = await repo.versions(ex, auth.accountId, ruleId, after, query.limit);
    if (rows.length === 0 && after === 0) throw notFound(ruleId);
    const page = pageOf(rows, query.limit);
    const names = await actorNames(
      ex,
      auth,
      page.items.map((v) => ({ type: v.changed_by_type, id: v.changed_by_id })),
    );
    return {
      items: page.items.map((v) => versionRowToVersion(v, names)),
      ...pageLinks(page, (last) => sealCursor(auth.cursorKey, 'coding_rule_versions', binding, [Number(last.version)])),
    };
  },

  /** The enabled rules ready to apply, in precedence order (only `ruleIds` when given); broken rules are left out. */
  async usableRules(ex: Executor, tenant: Tenant, ruleIds: readonly string[] | null): Promise<UsableRule[]> {
    return usable(ex, tenant, await repo.enabled(ex, tenant.accountId, ruleIds));
  },

  /**
   * At ingestion, in its transaction: what the account's rules set on each new record's lines (lines as given by
   * the source keep their values: rules fill only the fields a line lacks). Null when the account has no rule.
   */
  async codeAtIngestion(
    ex: Executor,
    tenant: Tenant,
    subjects: readonly RuleSubject[],
  ): Promise<LineDecision[][] | null> {
    const rules = await codingRulesService.usableRules(ex, tenant, null);
    if (rules.length === 0) return null;
    return subjects.map((subject) => decide(rules, subject, () => false, false));
  },

  /**
   * On existing records: what `rules` change, replacing a value already on a line only when a rule set it (and it
   * is still there), or any value with `overwrite`.
   */
  async decideFor(
    ex: Executor,
    tenant: Tenant,
    rules: readonly UsableRule[],
    subjects: readonly RuleSubject[],
    overwrite: boolean,
  ): Promise<LineDecision[][]> {
    const ids = subjects.flatMap((s) => (s.id === null ? [] : [s.id]));
    const set = new Map(
      (overwrite ? [] : await repo.lineValues(ex, tenant.accountId, ids)).map((v) => [
        `${v.record_id}/${v.line_id}/${v.field_id}`,
        v.value_id,
      ]),
    );
    return subjects.map((s) =>
      decide(
        rules,
        s,
        (line, fieldId, current) => overwrite || set.get(`${s.id}/${s.lines[line]!.id}/${fieldId}`) === current.svc_id,
        overwrite,
      ),
    );
  },

  /** Keeps which rule (and version) set each line value, in the transaction of the change. */
  async markApplied(
    ex: Executor,
    tenant: Tenant,
    marks: readonly {
      record_id: string;
      line_id: string;
      field_id: string;
      svc_id: string;
      rule_id: string;
      rule_version: number;
    }[],
    at: number,
  ): Promise<void> {
    if (marks.length === 0) return;
    await repo.upsertLineValues(
      ex,
      marks.map(({ svc_id, ...m }) => ({ account_id: tenant.accountId, ...m, value_id: svc_id, applied_at: at })),
    );
  },
};
