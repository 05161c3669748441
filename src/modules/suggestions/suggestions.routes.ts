import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import {
  AcceptBody,
  AcceptResponse,
  BatchBody,
  BatchResponse,
  RecordParams,
  RecordSuggestions,
} from './suggestions.schemas.js';
import { suggestionsService } from './suggestions.service.js';

const tags = ['Internal: coding suggestions'];
/** Suggestions are part of reviewing, as coding a line is. */
const REVIEW = ['accounting.record.review', 'accounting.record.admin'] as const;
const HOW =
  "For each economic line, the most likely value of each field it has no value in, learned from the account's own READY_FOR_EXPORT and EXPORTED records: the last 50 of the same vendor, of the same user, and of the same record type (those with memo words in common, those in the same amount band, all of them); of these signals, the most confident that speaks decides. Only values that are neither disabled nor deleted, of fields that are neither. No history: no suggestion. docs/suggestions.md.";

/** Coding suggestions (docs/suggestions.md): svc's own, for the console's record page and coding grid. */
export function suggestionsRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/v1/accounting/records/:record_id/suggestions',
      {
        config: { scopes: REVIEW },
        schema: {
          operationId: 'getCodingSuggestions',
          summary: "A record's coding suggestions",
          description: `${HOW} 404 for a record the account does not have.`,
          tags,
          params: RecordParams,
          response: { 200: RecordSuggestions, ...errorResponses(404) },
        },
      },
      async (request) =>
        (await db.read((ex) => suggestionsService.forRecords(ex, authOf(request), [request.params.record_id])))[0]!,
    );

    app.post(
      '/internal/v1/accounting/suggestions',
      {
        config: { scopes: REVIEW },
        schema: {
          operationId: 'listCodingSuggestions',
          summary: 'Coding suggestions for up to 200 records (a grid page)',
          description: `${HOW} Answered in the order asked; 404 NOT_FOUND naming every record the account does not have (details.not_found_accounting_record_ids). Nothing is written.`,
          tags,
          body: BatchBody,
          response: { 200: BatchResponse, ...errorResponses(400, 404) },
        },
      },
      async (request) => ({
        items: await db.read((ex) =>
          suggestionsService.forRecords(ex, authOf(request), request.body.accounting_record_ids),
        ),
      }),
    );

    app.post(
      '/internal/v1/accounting/records/:record_id/suggestions/accept',
      {
        config: { scopes: REVIEW },
        schema: {
          operationId: 'acceptCodingSuggestions',
          summary: "Accept a record's coding suggestions",
          description:
            "Codes each economic line with the record's suggestions as they are now (of line_ids and field_ids when given), adding each value to the line's coding. Allowed in PREPARE and REVIEW (409 RECORD_NOT_EDITABLE otherwise); version must be the current one (409 VERSION_CONFLICT). One new version, its history's CODED event naming each suggestion accepted (accepted_suggestions); with nothing to accept, nothing changes. Answers the record in double-entry and single-entry form, and what was accepted.",
          tags,
          params: RecordParams,
          body: AcceptBody,
          response: { 200: AcceptResponse, ...errorResponses(400, 404, 409, 422) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          suggestionsService.accept(ex, authOf(request), request.params.record_id, request.body),
        ),
    );
  };
}
