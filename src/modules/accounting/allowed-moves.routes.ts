import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { RecordIdParams } from './accounting.schemas.js';
import { allowedMovesService, type SuggestionsPort } from './allowed-moves.js';
import { AllowedMovesPage, AllowedMovesQuery, RecordWithAllowedMovesSchema } from './allowed-moves.schemas.js';

const tags = ['Internal: review workflow'];
const READ = [
  'accounting.record.read',
  'accounting.record.write',
  'accounting.record.review',
  'accounting.record.admin',
] as const;
const MOVES_NOTE =
  'allowed_moves lists every other review state: allowed, or not with the reason_code the move would be refused with and the reason in plain words, as the move (POST /internal/v1/accounting/records/review-status) would decide it now for this caller: its scopes, the lifecycle and the required coding.';

/** What a caller may do to records, as the server decides it: the console offers only these moves. */
export function allowedMovesRoutes(db: Db, suggestions: SuggestionsPort): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/v1/accounting/records/allowed-moves',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'getAccountingRecordsAllowedMoves',
          summary: 'The review moves each record allows',
          description: `For each record named that is the caller's (others are left out), its state, version and allowed moves. ${MOVES_NOTE}`,
          tags,
          querystring: AllowedMovesQuery,
          response: { 200: AllowedMovesPage },
        },
      },
      async (request) => allowedMovesService.many(db.direct, authOf(request), request.query.ids),
    );

    app.get(
      '/internal/v1/accounting/records/:record_id',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'getAccountingRecordForReview',
          summary: 'A record to review, with the moves it allows',
          description: `The record in double-entry and single-entry form, its allowed moves, whether the caller may change its coding now (coding: editable, or not with the reason_code a coding, split or merge would be refused with and the reason in plain words) and its coding suggestions, all of one read (one version). ${MOVES_NOTE} suggestions are those GET /internal/v1/accounting/records/{record_id}/suggestions answers, for a caller who may code (accounting.record.review or accounting.record.admin); null for any other.`,
          tags,
          params: RecordIdParams,
          response: { 200: RecordWithAllowedMovesSchema, ...errorResponses(404) },
        },
      },
      async (request) =>
        db.read((ex) => allowedMovesService.record(ex, authOf(request), request.params.record_id, suggestions)),
    );
  };
}
