import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { auditOf, authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { codingRulesApplyService } from './coding-rules.apply.service.js';
import {
  ApplyBody,
  ApplyResponse,
  CodingRule,
  CreateRuleBody,
  Deleted,
  PreviewBody,
  PreviewResponse,
  RuleIdParams,
  RuleListQuery,
  RulePage,
  RuleVersionPage,
  RuleVersionQuery,
  UpdateRuleBody,
} from './coding-rules.schemas.js';
import { codingRulesService } from './coding-rules.service.js';

const tags = ['Internal: coding rules'];
const BASE = '/internal/v1/accounting/coding-rules';
/** Reading and previewing rules is reviewing; saving and applying them changes how records get coded: admin. */
const READ = ['accounting.record.review', 'accounting.record.admin'] as const;
const WRITE = ['accounting.record.admin'] as const;
const CHECKS =
  'Refused: no condition, an impossible one (min > max, a record type outside source_types), no action, a field set twice (400 INVALID_REQUEST, each problem with its path); an unknown field, a value of another field, a deleted or disabled value, a value of a disabled field (422 INVALID_CODING, each with its path and reason).';

/** Coding rules (docs/coding-rules.md): svc's own, for the console and for the account's admins. */
export function codingRulesRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      BASE,
      {
        config: { scopes: WRITE },
        schema: {
          operationId: 'createCodingRule',
          summary: 'Create a coding rule',
          description: `Version 1, enabled unless told, placed after every rule of the account unless given a position. ${CHECKS}`,
          tags,
          body: CreateRuleBody,
          response: { 200: CodingRule, ...errorResponses(400, 422) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => codingRulesService.create(ex, auditOf(request), request.body)),
    );

    app.get(
      BASE,
      {
        config: { scopes: READ },
        schema: {
          operationId: 'listCodingRules',
          summary: "The account's coding rules, in precedence order",
          description:
            'Ordered by (position, creation). status is computed now: BROKEN when a value the rule sets has been deleted or disabled since (problems names each); a broken rule applies nowhere.',
          tags,
          querystring: RuleListQuery,
          response: { 200: RulePage },
        },
      },
      async (request) =>
        codingRulesService.list(db.direct, authOf(request), {
          cursor: request.query.cursor,
          limit: request.query.limit ?? 100,
        }),
    );

    app.post(
      `${BASE}/preview`,
      {
        config: { scopes: READ },
        schema: {
          operationId: 'previewCodingRule',
          summary: 'Preview an unsaved rule on the records under review',
          description: `How many PREPARE and REVIEW records the rule, applied on its own now, would change, and up to 10 of them with each line's values before and after. Nothing is written. ${CHECKS}`,
          tags,
          body: PreviewBody,
          response: { 200: PreviewResponse, ...errorResponses(400, 422) },
        },
      },
      // One snapshot: the count and the sample are of the same records, however many pages they take.
      async (request) => db.read((ex) => codingRulesApplyService.preview(ex, authOf(request), request.body)),
    );

    app.post(
      `${BASE}/apply`,
      {
        config: { scopes: WRITE },
        schema: {
          operationId: 'applyCodingRules',
          summary: 'Apply the rules to the records under review',
          description:
            "All or nothing. The enabled rules (or those named: each must be enabled and not broken), in precedence order, on the PREPARE and REVIEW records (or those named). A value a person set is never replaced unless overwrite is true; a value a rule set may be. Each changed record's version grows by one and its history gets a CODED_BY_RULES event naming the rule and version of each value.",
          tags,
          body: ApplyBody,
          response: { 200: ApplyResponse, ...errorResponses(400, 404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => codingRulesApplyService.apply(ex, auditOf(request), request.body)),
    );

    app.get(
      `${BASE}/:rule_id`,
      {
        config: { scopes: READ },
        schema: {
          operationId: 'getCodingRule',
          summary: 'Get a coding rule',
          description: 'With its status computed now (BROKEN when a value it sets was deleted or disabled since).',
          tags,
          params: RuleIdParams,
          response: { 200: CodingRule, ...errorResponses(404) },
        },
      },
      async (request) => codingRulesService.get(db.direct, authOf(request), request.params.rule_id),
    );

    app.patch(
      `${BASE}/:rule_id`,
      {
        config: { scopes: WRITE },
        schema: {
          operationId: 'updateCodingRule',
          summary: 'Change a coding rule (a new version)',
          description: `Absent members unchanged. version must be the current one (409 VERSION_CONFLICT). A change makes a new version, kept with who made it; nothing that differs leaves the rule as it is. ${CHECKS}`,
          tags,
          params: RuleIdParams,
          body: UpdateRuleBody,
          response: { 200: CodingRule, ...errorResponses(400, 404, 409, 422) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          codingRulesService.update(ex, auditOf(request), request.params.rule_id, request.body),
        ),
    );

    app.delete(
      `${BASE}/:rule_id`,
      {
        config: { scopes: WRITE },
        schema: {
          operationId: 'deleteCodingRule',
          summary: 'Delete a coding rule',
          description:
            'It applies no more; its versions stay readable (records name them), the last one saying who deleted it. Values it set stay on their lines.',
          tags,
          params: RuleIdParams,
          response: { 200: Deleted, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          codingRulesService.delete(ex, auditOf(request), request.params.rule_id),
        ),
    );

    app.get(
      `${BASE}/:rule_id/versions`,
      {
        config: { scopes: READ },
        schema: {
          operationId: 'listCodingRuleVersions',
          summary: "A coding rule's versions, oldest first",
          description: 'Each as saved, with what changed it (CREATED, UPDATED, DELETED), when and by whom.',
          tags,
          params: RuleIdParams,
          querystring: RuleVersionQuery,
          response: { 200: RuleVersionPage, ...errorResponses(404) },
        },
      },
      async (request) =>
        codingRulesService.versions(db.direct, authOf(request), request.params.rule_id, {
          cursor: request.query.cursor,
          limit: request.query.limit ?? 100,
        }),
    );
  };
}
