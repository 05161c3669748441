import { paginate } from './pages.js';
import { writer, newIdempotencyKey, type RequestOptions, type Transport, type WriteOptions } from './transport.js';
import type {
  CodingRule,
  CodingRuleCreateRequest,
  CodingRuleListQuery,
  CodingRulePage,
  CodingRulePreview,
  CodingRulePreviewRequest,
  CodingRuleUpdateRequest,
  CodingRuleVersion,
  CodingRuleVersionPage,
  CodingRuleVersionQuery,
  CodingRulesApplied,
  CodingRulesApplyRequest,
} from './types.js';

const enc = encodeURIComponent;
const BASE = '/internal/v1/accounting/coding-rules';
type ListQuery<Q> = Omit<Q, 'cursor'>;

/**
 * The account's coding rules (docs/coding-rules.md): reads and previews need accounting.record.review or
 * accounting.record.admin; saving, deleting and applying rules need accounting.record.admin. Writes carry an
 * Idempotency-Key (one of their own unless given), so a retry never saves or applies twice.
 */
export function codingRulesApi(http: Transport) {
  const write = writer(http);
  /** One page, in precedence order (position, then creation); each rule's status computed now. */
  const list = (query: CodingRuleListQuery = {}, options?: RequestOptions) =>
    http.request<CodingRulePage>({ method: 'GET', path: BASE, query, options });
  /** One page of a rule's versions, oldest first, each with what changed it, when and by whom. */
  const versions = (ruleId: string, query: CodingRuleVersionQuery = {}, options?: RequestOptions) =>
    http.request<CodingRuleVersionPage>({ method: 'GET', path: `${BASE}/${enc(ruleId)}/versions`, query, options });
  return {
    list,
    listAll: (query: ListQuery<CodingRuleListQuery> = {}, options?: RequestOptions) =>
      paginate<CodingRule, CodingRuleListQuery>((q) => list(q, options), query),
    get: (ruleId: string, options?: RequestOptions) =>
      http.request<CodingRule>({ method: 'GET', path: `${BASE}/${enc(ruleId)}`, options }),
    /**
     * Version 1, enabled unless told, after every rule of the account unless given a position. A malformed rule is
     * a SvcValidationError (400 INVALID_REQUEST); a value that cannot be set a SvcConflictError (422 INVALID_CODING).
     */
    create: (input: CodingRuleCreateRequest, options?: WriteOptions) => write<CodingRule>('POST', BASE, input, options),
    /**
     * Absent members unchanged; `version` must be the rule's current one, else a SvcConflictError with error_code
     * VERSION_CONFLICT (read the rule again). A change is a new version.
     */
    update: (ruleId: string, changes: CodingRuleUpdateRequest, options?: WriteOptions) =>
      http.request<CodingRule>({
        method: 'PATCH',
        path: `${BASE}/${enc(ruleId)}`,
        body: changes,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    /** It applies no more; its versions stay readable, and the values it set stay on their lines. */
    delete: (ruleId: string, options?: WriteOptions) =>
      http.request<Record<string, never>>({
        method: 'DELETE',
        path: `${BASE}/${enc(ruleId)}`,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    versions,
    versionsAll: (ruleId: string, query: ListQuery<CodingRuleVersionQuery> = {}, options?: RequestOptions) =>
      paginate<CodingRuleVersion, CodingRuleVersionQuery>((q) => versions(ruleId, q, options), query),
    /**
     * What an unsaved rule (its conditions and actions), applied on its own now, would change on the records under
     * review: how many, and up to 10 of them line by line. Nothing is written, so it takes no Idempotency-Key.
     */
    preview: (input: CodingRulePreviewRequest, options?: RequestOptions) =>
      http.request<CodingRulePreview>({ method: 'POST', path: `${BASE}/preview`, body: input, options }),
    /**
     * The enabled rules (or `rule_ids`) on the PREPARE and REVIEW records (or `accounting_record_ids`), all or
     * nothing; a value a person set is replaced only with `overwrite`. Answers the records it changed.
     */
    apply: (input: CodingRulesApplyRequest = {}, options?: WriteOptions) =>
      write<CodingRulesApplied>('POST', `${BASE}/apply`, input, options),
  };
}
