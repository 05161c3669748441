import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import {
  MAX_SAVED_VIEWS,
  SavedView,
  SavedViewBody,
  SavedViewDeleted,
  SavedViewList,
  SavedViewParams,
  SavedViewPatch,
} from './saved-views.schemas.js';
import { savedViewsService } from './saved-views.service.js';

const tags = ['Console: saved views'];
/** Whoever may search the queue may keep views of it. */
const config = {
  scopes: ['accounting.record.read', 'accounting.record.write', 'accounting.record.review', 'accounting.record.admin'],
  consoleOnly: true,
} as const;
const WHOSE =
  "The signed-in console user's own saved views of the review queue (a session, not an API client: 403 CONSOLE_ONLY otherwise); another user's view, or another account's, is never listed and answers 404.";
const FILTERS =
  '`filters` are checked as the search query (GET /internal/v1/accounting/records) is: a bad member is refused 400 INVALID_REQUEST naming it (`/filters/…`), and nothing is saved.';
const NAME = `A name the user has already (compared trimmed, without regard to case) is refused 409 CONFLICT with details {name, saved_view_id}.`;
const collection = '/internal/v1/accounting/saved-views';
const one = `${collection}/:view_id`;

/** Named views of the review queue (docs/console.md, "Saved views"). */
export function savedViewsRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      collection,
      {
        config,
        schema: {
          operationId: 'listSavedViews',
          summary: 'My saved views of the review queue',
          description: `${WHOSE} Every one, by name.`,
          tags,
          response: { 200: SavedViewList },
        },
      },
      async (request) => db.read((ex) => savedViewsService.list(ex, authOf(request))),
    );

    app.post(
      collection,
      {
        config,
        schema: {
          operationId: 'createSavedView',
          summary: 'Save a view of the review queue',
          description: `${WHOSE} ${FILTERS} ${NAME} At most ${MAX_SAVED_VIEWS} views a user (409 CONFLICT with details.max_saved_views beyond).`,
          tags,
          body: SavedViewBody,
          response: { 200: SavedView, ...errorResponses(400, 409) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) => savedViewsService.create(trx, authOf(request), request.body)),
    );

    app.patch(
      one,
      {
        config,
        schema: {
          operationId: 'updateSavedView',
          summary: 'Rename a saved view, or change its filters',
          description: `${WHOSE} ${FILTERS} ${NAME}`,
          tags,
          params: SavedViewParams,
          body: SavedViewPatch,
          response: { 200: SavedView, ...errorResponses(400, 404, 409) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) =>
          savedViewsService.change(trx, authOf(request), request.params.view_id, request.body),
        ),
    );

    app.delete(
      one,
      {
        config,
        schema: {
          operationId: 'deleteSavedView',
          summary: 'Delete a saved view',
          description: `${WHOSE} Answers {}.`,
          tags,
          params: SavedViewParams,
          response: { 200: SavedViewDeleted, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) =>
          savedViewsService.delete(trx, authOf(request), request.params.view_id),
        ),
    );
  };
}
