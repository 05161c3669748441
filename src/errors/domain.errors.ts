import { AppError, type ValidationProblem } from './app-error.js';

/**
 * Why a review move is refused, in words: a move to EXPORTED names the one operation that makes it, the others
 * the moves there are (docs/accounting.md, "Review lifecycle").
 */
export function transitionRefusal(from: string, to: string): string {
  if (to === 'EXPORTED') {
    return 'Only an export result moves a record to EXPORTED: report it with POST /v3/accounting/records/export-results (the record must be READY_FOR_EXPORT).';
  }
  if (from === to) return `The record is already in ${to}.`;
  return `A record in ${from} cannot move to ${to}: records move one step at a time (PREPARE, REVIEW, READY_FOR_EXPORT, either way), and from EXPORTED back to REVIEW.`;
}

/** The business rules of records, values and integrations. Used through `errors` (src/errors.ts). */
export const domainErrors = {
  addressedValuesNotFound: (fieldId: string, missing: Record<string, unknown>[]) =>
    new AppError(
      'NOT_FOUND',
      404,
      `${missing.length === 1 ? '1 addressed field value was' : `${missing.length} addressed field values were`} not found in field ${fieldId}; nothing was changed.`,
      { field_id: fieldId, not_found: missing },
    ),
  duplicateExportResults: (ids: string[]) =>
    new AppError(
      'DUPLICATE_ACCOUNTING_RECORD_IDS',
      422,
      `${ids.length === 1 ? 'This record is' : 'These records are'} named more than once in the results: ${ids.join(', ')}. Report each record once; no export result was applied.`,
      { duplicate_accounting_record_ids: ids },
    ),
  /** A file export naming records the account does not have: 404, as export results answer them. */
  exportedSelectionNotFound: (ids: string[]) =>
    new AppError(
      'NOT_FOUND',
      404,
      `${ids.length === 1 ? 'No accounting record has the id' : 'No accounting records have the ids'} ${ids.join(', ')}; nothing was exported.`,
      { not_found_accounting_record_ids: ids },
    ),
  /** A file export (modules/exports) refused: each record named with what keeps it out; nothing was written. */
  exportRefused: (records: { accounting_record_id: string; review_status: string; problems: string[] }[]) =>
    new AppError(
      'EXPORT_REFUSED',
      422,
      `${records.length === 1 ? '1 record cannot' : `${records.length} records cannot`} be exported, so nothing was: ${records
        .slice(0, 10)
        .map((r) => `${r.accounting_record_id} ${r.problems.join('; ')}`)
        .join('. ')}${records.length > 10 ? `. And ${records.length - 10} more (details.records)` : ''}.`,
      { records },
    ),
  /**
   * A file export whose file the format's import cannot take whole (Xero: 300 lines per file): refused as a whole,
   * no record at fault; `records_that_fit` of the selection's first records (in file order) would.
   */
  exportTooLarge: (format: string, lines: number, maxLines: number, recordsThatFit: number) =>
    new AppError(
      'EXPORT_TOO_LARGE',
      422,
      `The ${format} file would hold ${lines} lines, and its import takes at most ${maxLines} in one file, so nothing was exported: select fewer records (a shorter posted_from–posted_to, or accounting_record_ids); the first ${recordsThatFit} in file order fit.`,
      { format, lines, max_lines: maxLines, records_that_fit: recordsThatFit },
    ),
  /** Export results for records the account does not have (the reference's details key, plainer words). */
  exportedRecordsNotFound: (ids: string[]) =>
    new AppError(
      'NOT_FOUND',
      404,
      `${ids.length === 1 ? 'No accounting record has the id' : 'No accounting records have the ids'} ${ids.join(', ')}; no export result was applied.`,
      { not_found_export_entry_source_ids: ids },
    ),
  notReadyForExport: (exportable: string, ids: string[]) =>
    new AppError(
      'ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT',
      422,
      `Export results are taken only for records in ${exportable}, and ${ids.length === 1 ? 'this one is' : 'these are'} not: ${ids.join(', ')}. No export result was applied.`,
      { not_ready_for_export_accounting_record_ids: ids },
    ),
  invalidTransition: (from: string, to: string) =>
    new AppError('INVALID_TRANSITION', 409, transitionRefusal(from, to), { from, to }),
  versionConflict: (expected: number, actual: number) =>
    new AppError('VERSION_CONFLICT', 409, `The record is at version ${actual}, not ${expected}.`, {
      expected_version: expected,
      current_version: actual,
    }),
  /** Fields or values a coding rule names that the account does not have (unknown, or deleted): as if absent. */
  ruleValuesNotFound: (problems: (ValidationProblem & Record<string, unknown>)[]) =>
    new AppError(
      'NOT_FOUND',
      404,
      `The rule names fields or values not found: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}. Nothing was changed.`,
      { errors: problems },
    ),
  /** A coding rule changed since the caller read it. */
  ruleVersionConflict: (ruleId: string, expected: number, actual: number) =>
    new AppError('VERSION_CONFLICT', 409, `Coding rule ${ruleId} is at version ${actual}, not ${expected}.`, {
      rule_id: ruleId,
      expected_version: expected,
      current_version: actual,
    }),
  /** Coding, splitting and merging are for records under review. */
  recordNotEditable: (id: string, status: string, editable: readonly string[]) =>
    new AppError(
      'RECORD_NOT_EDITABLE',
      409,
      `Record ${id} is ${status}: its lines can be coded, split or merged only in ${editable.join(' or ')}. Move it back to REVIEW first.`,
      { accounting_record_id: id, review_status: status, editable_review_statuses: [...editable] },
    ),
  /** Field values that cannot code a line: each problem names the line and the value. */
  invalidCoding: (problems: (ValidationProblem & Record<string, unknown>)[]) =>
    new AppError(
      'INVALID_CODING',
      422,
      `The coding cannot be applied: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}. Nothing was changed.`,
      { errors: problems },
    ),
  /** A bulk review move refused: every failing record, each with its own code; the status of the gravest. */
  bulkMoveRefused: (
    code: 'NOT_FOUND' | 'VERSION_CONFLICT' | 'INVALID_TRANSITION' | 'CODING_REQUIRED' | 'RECEIPT_REQUIRED',
    requested: number,
    problems: Record<string, unknown>[],
  ) =>
    new AppError(
      code,
      code === 'NOT_FOUND' ? 404 : code === 'CODING_REQUIRED' || code === 'RECEIPT_REQUIRED' ? 422 : 409,
      `${problems.length} of ${requested} records cannot make this move; nothing was changed. details.errors names each.`,
      { errors: problems },
    ),
  codingRequired: (records: Record<string, unknown>[]) =>
    new AppError(
      'CODING_REQUIRED',
      422,
      `${records.length === 1 ? '1 record lacks' : `${records.length} records lack`} the coding the account requires before READY_FOR_EXPORT; nothing was changed.`,
      { records },
    ),
  /** The account has an ACTIVE integration, and the request would make another (create, reactivate). */
  activeIntegrationExists: (
    message: string,
    existing: { integration_id: string; vendor: string },
    requestedVendor: string,
  ) =>
    new AppError('ACTIVE_INTEGRATION_EXISTS', 409, message, {
      existing_integration_id: existing.integration_id,
      existing_vendor: existing.vendor,
      requested_vendor: requestedVendor,
    }),
  vendorAccountIdMismatch: (existing: { integration_id: string; vendor_account_id: string }, requested: string) =>
    new AppError(
      'VENDOR_ACCOUNT_ID_MISMATCH',
      409,
      'Cannot create integration. An active integration for this vendor already exists with a different vendor account ID.',
      {
        existing_integration_id: existing.integration_id,
        existing_vendor_account_id: existing.vendor_account_id,
        requested_vendor_account_id: requested,
      },
    ),
  integrationNotActive: (integrationId: string, status: string) =>
    new AppError('INTEGRATION_NOT_ACTIVE', 409, 'Cannot disconnect integration. Integration is not active.', {
      integration_id: integrationId,
      current_status: status,
    }),
  /**
   * A vendor that no operator created, or one disabled, named by the request at `path` (the body's /vendor, or
   * the integration a reactivation names): 400, as any other invalid value.
   */
  vendorUnusable: (vendor: string, state: 'unknown' | 'disabled', path: string) =>
    new AppError(
      'INVALID_REQUEST',
      400,
      state === 'unknown'
        ? `Vendor ${vendor} is not a vendor of this service: ERP partners get their vendor id from the service's operator.`
        : `Vendor ${vendor} is disabled: no integration with it can be created or reactivated.`,
      {
        errors: [
          {
            path,
            message: state === 'unknown' ? 'names no vendor of this service' : `names disabled vendor ${vendor}`,
          },
        ],
      },
    ),
  /**
   * A webhook endpoint's URL it may not have (INVALID_REQUEST at /url); details.url_refused says why in a form a
   * client can put in its own words: { reason, address?, address_class? } (webhooks.targets.ts targetRefusal).
   */
  webhookUrlRefused: (refusal: { reason: string; message: string; address?: string; address_class?: string }) => {
    const { message, ...why } = refusal;
    return new AppError('INVALID_REQUEST', 400, `The request is invalid: /url ${message}.`, {
      errors: [{ path: '/url', message }],
      url_refused: why,
    });
  },
  /** The account has as many webhook endpoints as an account may have: nothing was created. */
  webhookEndpointLimitReached: (limit: number) =>
    new AppError(
      'WEBHOOK_ENDPOINT_LIMIT_REACHED',
      409,
      `An account may have at most ${limit} webhook endpoints; delete one before creating another. Nothing was created.`,
      { max_webhook_endpoints: limit },
    ),
  /** A test event was asked of a DISABLED endpoint, which is sent nothing: nothing was queued. */
  webhookEndpointDisabled: (id: string) =>
    new AppError(
      'WEBHOOK_ENDPOINT_DISABLED',
      409,
      `Webhook endpoint ${id} is disabled and is sent nothing; enable it (PUT status ENABLED), then send the test event. Nothing was queued.`,
      { webhook_id: id, status: 'DISABLED' },
    ),
} as const;
