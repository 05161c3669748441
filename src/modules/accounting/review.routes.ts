import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { auditOf, authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { RecordIdParams } from './accounting.schemas.js';
import { codingService } from './coding.service.js';
import { historyService } from './history.js';
import { MOVE_SCOPES } from './move-rules.js';
import { requiredCoding } from './required-coding.js';
import {
  BulkMoveBody,
  BulkMoveResponse,
  CodeLinesBody,
  HistoryPage,
  HistoryQuery,
  LineParams,
  MergeLinesBody,
  RecordWithSingleEntry,
  RequiredFieldsBody,
  RequiredFieldsResponse,
  ReviewSettingsBody,
  ReviewSettingsResponse,
  SplitLineBody,
} from './review.schemas.js';
import { reviewService } from './review.service.js';
import { RecordSearchPage, RecordSearchQuery } from './search.schemas.js';
import { reviewSettings } from './review-settings.js';
import { searchService } from './search.service.js';
import { splitMergeService } from './split-merge.service.js';
import { sendPrewritten } from '../../http/serialization.js';

const tags = ['Internal: review workflow'];
const REVIEW = ['accounting.record.review', 'accounting.record.admin'] as const;
const READ = ['accounting.record.read', 'accounting.record.write', ...REVIEW] as const;
const EDIT_NOTE =
  'Allowed in PREPARE and REVIEW (409 RECORD_NOT_EDITABLE otherwise); `version` must be the current one (409 VERSION_CONFLICT). Bumps the version by one and moves updated_at, as every change does; kept in the history. Answers the record in double-entry and single-entry form.';

/**
 * The review workflow: coding, splitting and merging lines, bulk moves, required coding and review settings,
 * history and search.
 */
export function reviewRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    const edited = { 200: RecordWithSingleEntry, ...errorResponses(404, 409, 422) };

    app.post(
      '/internal/v1/accounting/records/:record_id/coding',
      {
        config: { scopes: REVIEW },
        schema: {
          operationId: 'codeAccountingRecordLines',
          summary: 'Code economic lines of a record',
          description: `Sets each given line's whole coding: at most one value per field, each a value of the account that is neither disabled nor of a disabled field (422 INVALID_CODING names the line and value otherwise). ${EDIT_NOTE}`,
          tags,
          params: RecordIdParams,
          body: CodeLinesBody,
          response: edited,
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          codingService.codeLines(ex, authOf(request), request.params.record_id, request.body),
        ),
    );

    app.post(
      '/internal/v1/accounting/records/:record_id/lines/:line_id/split',
      {
        config: { scopes: REVIEW },
        schema: {
          operationId: 'splitAccountingRecordLine',
          summary: 'Split an economic line into coded parts',
          description: `The parts' amounts (in the record's currency) must sum exactly to the line's; its original amount is apportioned over them. A part without field_values keeps the line's coding. ${EDIT_NOTE}`,
          tags,
          params: LineParams,
          body: SplitLineBody,
          response: edited,
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          splitMergeService.splitLine(
            ex,
            authOf(request),
            request.params.record_id,
            request.params.line_id,
            request.body,
          ),
        ),
    );

    app.post(
      '/internal/v1/accounting/records/:record_id/lines/merge',
      {
        config: { scopes: REVIEW },
        schema: {
          operationId: 'mergeAccountingRecordLines',
          summary: 'Merge economic lines into one',
          description: `The merged line takes the place of the first, with the lines' summed amounts; its coding as given, else the values every merged line shares. ${EDIT_NOTE}`,
          tags,
          params: RecordIdParams,
          body: MergeLinesBody,
          response: edited,
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          splitMergeService.mergeLines(ex, authOf(request), request.params.record_id, request.body),
        ),
    );

    app.post(
      '/internal/v1/accounting/records/review-status',
      {
        config: { scopes: MOVE_SCOPES },
        schema: {
          operationId: 'moveAccountingRecordsReviewStatus',
          summary: 'Move up to 1000 records to a review state',
          description:
            "All or nothing by default. Each record may give the version it expects. A refusal lists every record that cannot move in details.errors, each with its own error_code (NOT_FOUND, VERSION_CONFLICT, INVALID_TRANSITION, CODING_REQUIRED, RECEIPT_REQUIRED), message and reason in plain words; the answer takes the status and code of the gravest (404, then 409, then 422). Moves to READY_FOR_EXPORT check the account's required coding, then its receipt policy (RECEIPT_REQUIRED, with record_type, currency, amount_minor and above_minor). With partial: true (asked for explicitly), the records that may move do and the answer is 200: items are those moved, not_moved each other record with its error_code, message and reason, as a refusal would name it.",
          tags,
          body: BulkMoveBody,
          response: { 200: BulkMoveResponse, ...errorResponses(404, 409, 422) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => reviewService.moveMany(ex, authOf(request), request.body)),
    );

    app.get(
      '/internal/v1/accounting/records/:record_id/history',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'getAccountingRecordHistory',
          summary: "A record's history",
          description: 'Every change of the record, in version order: what happened, when, who, and what changed.',
          tags,
          params: RecordIdParams,
          querystring: HistoryQuery,
          response: { 200: HistoryPage, ...errorResponses(404) },
        },
      },
      async (request) => historyService.page(db.direct, authOf(request), request.params.record_id, request.query),
    );

    app.get(
      '/internal/v1/accounting/records',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'searchAccountingRecords',
          summary: 'Find records to review',
          description:
            'Records matching every given filter, sorted (default updated_at; `-` descending; ties by id), a keyset page at a time. Unlike the public query, review_status alone matches records of every source type.',
          tags,
          querystring: RecordSearchQuery,
          response: { 200: RecordSearchPage },
        },
      },
      async (request, reply) =>
        sendPrewritten(reply, await searchService.search(db.direct, authOf(request), request.query)),
    );

    app.get(
      '/internal/v1/accounting/required-coding',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'getRequiredCoding',
          summary: 'Fields every economic line must be coded with before READY_FOR_EXPORT',
          description:
            "The account's required coding: a move to READY_FOR_EXPORT of a record with an economic line lacking one of these fields answers 422 CODING_REQUIRED naming the record and lines. Empty: nothing is required.",
          tags,
          response: { 200: RequiredFieldsResponse },
        },
      },
      async (request) => ({ items: await requiredCoding.fields(db.direct, authOf(request)) }),
    );

    app.put(
      '/internal/v1/accounting/required-coding',
      {
        config: { scopes: ['accounting.record.admin'] },
        schema: {
          operationId: 'setRequiredCoding',
          summary: 'Set the fields every economic line must be coded with before READY_FOR_EXPORT',
          description:
            'Replaces the list (each a field of the account; 404 names those that are not). Records already READY_FOR_EXPORT are not re-checked; moves and creations from now on are.',
          tags,
          body: RequiredFieldsBody,
          response: { 200: RequiredFieldsResponse, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => requiredCoding.set(ex, auditOf(request), request.body.field_ids)),
    );

    app.get(
      '/internal/v1/accounting/review-settings',
      {
        config: { scopes: REVIEW },
        schema: {
          operationId: 'getReviewSettings',
          summary: "The account's review settings (auto-submit)",
          description:
            'auto_submit: records ingested in PREPARE that coding rules coded (a rule set at least one value) and that then carry every field of the required coding on every economic line go on to REVIEW in the ingestion itself; records sent coded with no rule involved stay in PREPARE. Off until set.',
          tags,
          response: { 200: ReviewSettingsResponse },
        },
      },
      async (request) => reviewSettings.get(db.direct, authOf(request)),
    );

    app.put(
      '/internal/v1/accounting/review-settings',
      {
        config: { scopes: ['accounting.record.admin'] },
        schema: {
          operationId: 'setReviewSettings',
          summary: "Set the account's review settings (auto-submit)",
          description:
            'Replaces the settings; kept in the audit log (account.settings_changed). Applies to ingestions from now on: records already ingested do not move.',
          tags,
          body: ReviewSettingsBody,
          response: { 200: ReviewSettingsResponse },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => reviewSettings.set(ex, auditOf(request), request.body)),
    );
  };
}
