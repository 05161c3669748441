import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { Deleted, DRAFT_LIMIT_BYTES, DraftAnswer, DraftBody, RecordDraft, RecordParams } from './drafts.schemas.js';
import { Type } from 'typebox';
import { draftsService } from './drafts.service.js';

const tags = ['Console: drafts'];
/** Whoever may code a record may keep a draft of its coding. */
const config = { scopes: ['accounting.record.review', 'accounting.record.admin'], consoleOnly: true } as const;
const WHOSE =
  "The signed-in console user's own draft of the record's coding (a session, not an API client: 403 CONSOLE_ONLY otherwise); another user's draft is never read or changed. 404 for a record the account does not have.";
const path = '/internal/v1/accounting/records/:record_id/draft';

/** A console user's unsaved coding of a record, kept on the server (docs/console.md, "Work is never lost"). */
export function draftsRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      path,
      {
        config,
        schema: {
          operationId: 'getRecordDraft',
          summary: 'My draft of a record’s coding',
          description: `${WHOSE} \`draft\` is null when there is none.`,
          tags,
          params: RecordParams,
          response: { 200: DraftAnswer, ...errorResponses(404) },
        },
      },
      async (request) => db.read((ex) => draftsService.get(ex, authOf(request), request.params.record_id)),
    );

    app.put(
      path,
      {
        config,
        bodyLimit: DRAFT_LIMIT_BYTES,
        schema: {
          operationId: 'putRecordDraft',
          summary: 'Keep my draft of a record’s coding',
          description: `${WHOSE} Replaces the draft: the edited cells and the record's version they started from. A body of at most ${DRAFT_LIMIT_BYTES} bytes (413 PAYLOAD_TOO_LARGE).`,
          tags,
          params: RecordParams,
          body: DraftBody,
          response: {
            200: Type.Object({ draft: RecordDraft }, { additionalProperties: false }),
            ...errorResponses(404, 413),
          },
        },
      },
      async (request) =>
        db.write((ex) => draftsService.put(ex, authOf(request), request.params.record_id, request.body)),
    );

    app.delete(
      path,
      {
        config,
        schema: {
          operationId: 'deleteRecordDraft',
          summary: 'Delete my draft of a record’s coding',
          description: `${WHOSE} Answers {} whether there was one or not (the console deletes it on save and on discard).`,
          tags,
          params: RecordParams,
          response: { 200: Deleted, ...errorResponses(404) },
        },
      },
      async (request) => db.write((ex) => draftsService.delete(ex, authOf(request), request.params.record_id)),
    );
  };
}
