import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { isAppError, problemsMessage, type ValidationProblem } from '../errors.js';
import { isRecord } from '../lib/guards.js';
import { operatorSource } from '../modules/audit/audit.service.js';
import { codingRulesApplyService } from '../modules/coding-rules/coding-rules.apply.service.js';
import { ApplyBody, CreateRuleBody, type ApplyDto } from '../modules/coding-rules/coding-rules.schemas.js';
import { codingRulesService } from '../modules/coding-rules/coding-rules.service.js';
import { CliUsageError, parseAccount } from './usage.js';

type Out = (line: string) => void;
type WithDb = <T>(work: (db: Db, config: Config) => Promise<T>) => Promise<T>;

/** Thrown inside a dry run's transaction with what it answered, so that the transaction rolls back. */
class DryRun {
  constructor(readonly answer: ApplyDto) {}
}

/**
 * `svc rules …`: the operator's side of an account's coding rules (the API is /internal/v1/accounting/coding-rules),
 * through the module's services as the API's routes call them, acting as the system (`svc-cli`).
 */
export async function rules(args: string[], out: Out, withDb: WithDb): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      account: { type: 'string' },
      file: { type: 'string' },
      json: { type: 'string' },
      rule: { type: 'string', multiple: true },
      record: { type: 'string', multiple: true },
      overwrite: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    },
    allowPositionals: false,
    strict: true,
  });
  if (positionals.length > 0) throw new CliUsageError(`rules ${sub ?? ''} takes no operands`);
  const caller = operatorSource(parseAccount(values.account));
  const only = (allowed: string[]) => {
    const extra = Object.entries(values)
      .filter(([name, value]) => name !== 'account' && !allowed.includes(name) && value !== undefined)
      .map(([name]) => name);
    if (extra.length > 0) throw new CliUsageError(`rules ${sub} takes no --${extra.join(', --')}`);
  };
  if (sub === 'list') {
    only([]);
    for (const rule of await withDb((db) => codingRulesService.listAll(db.direct, caller))) out(JSON.stringify(rule));
    return;
  }
  if (sub === 'create') {
    only(['file', 'json']);
    const input = checked(CreateRuleBody, ruleJson(values.file, values.json), values.file ?? '--json');
    const rule = await refusalsAsUsage(() =>
      withDb((db) => db.write((ex) => codingRulesService.create(ex, caller, input))),
    );
    out(JSON.stringify(rule));
    return;
  }
  if (sub === 'apply') {
    only(['rule', 'record', 'overwrite', 'dry-run']);
    const input = checked(
      ApplyBody,
      {
        ...(values.rule ? { rule_ids: values.rule } : {}),
        ...(values.record ? { accounting_record_ids: values.record } : {}),
        ...(values.overwrite ? { overwrite: true } : {}),
      },
      'rules apply',
    );
    const apply = (db: Db) => db.write((ex) => codingRulesApplyService.apply(ex, caller, input));
    if (!values['dry-run']) {
      out(JSON.stringify(await refusalsAsUsage(() => withDb(apply))));
      return;
    }
    // The apply itself, in a transaction rolled back at its end: exactly what it would change, and nothing written.
    const dryRun = (db: Db) =>
      db.write(async (ex) => {
        throw new DryRun(await codingRulesApplyService.apply(ex, caller, input));
      });
    const answer = await refusalsAsUsage(() =>
      withDb(dryRun).then(
        () => {
          throw new Error('a dry run ended without its answer');
        },
        (error: unknown) => {
          if (error instanceof DryRun) return error.answer;
          throw error;
        },
      ),
    );
    out(JSON.stringify({ dry_run: true, ...answer }));
    return;
  }
  throw new CliUsageError(`unknown command: rules ${sub ?? ''}`.trim());
}

/** The rule's JSON, from a file or the command line (one of them). */
function ruleJson(file: string | undefined, json: string | undefined): unknown {
  if ((file === undefined) === (json === undefined)) throw new CliUsageError('give either --file or --json');
  let text = json ?? '';
  if (file !== undefined) {
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliUsageError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliUsageError(
      `${file ?? '--json'} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The body as the API's schema takes it, or a refusal naming each problem as the API would (400's paths). */
function checked<S extends TSchema>(schema: S, body: unknown, what: string) {
  const problems: ValidationProblem[] = Value.Errors(schema, body)
    .filter((e) => e.keyword !== 'boolean') // "schema is false" repeats an additionalProperties problem
    .map((e) => ({ path: e.instancePath, message: e.message }));
  if (problems.length > 0 || !Value.Check(schema, body)) {
    throw new CliUsageError(`${what}: ${problemsMessage(problems)}`);
  }
  return body;
}

/** A refusal of the service (an unknown rule or record, a bad rule) is the operator's mistake: exit 2, its words. */
async function refusalsAsUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isAppError(error) || error.status >= 500) throw error;
    const listed = error.details?.errors;
    const problems = (Array.isArray(listed) ? listed : [])
      .filter(isRecord)
      .map((p) => ({ path: String(p.path), message: String(p.message) }));
    throw new CliUsageError(problems.length > 0 ? problemsMessage(problems) : error.message);
  }
}
