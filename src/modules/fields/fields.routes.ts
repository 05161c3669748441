import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { fieldsService } from './fields.service.js';
import {
  Empty,
  Field,
  FieldCreateBody,
  FieldIdParams,
  FieldListQuery,
  FieldPage,
  FieldUpdateBody,
} from './fields.schemas.js';

const tags = ['Fields'];

export function fieldsRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/fields',
      {
        config: { scopes: ['fields.read', 'fields.write'] },
        schema: {
          operationId: 'listFields',
          summary: 'List custom fields',
          description: "Fields of the caller's account in creation order, a page at a time.",
          tags,
          querystring: FieldListQuery,
          response: { 200: FieldPage },
        },
      },
      async (request) => {
        const q = request.query;
        return fieldsService.list(db.direct, authOf(request), {
          fieldIds: q['field_id[]'],
          cursor: q.cursor,
          limit: q.limit ?? 100,
        });
      },
    );

    app.post(
      '/v1/fields',
      {
        config: { scopes: ['fields.write'], idempotency: 'required' },
        schema: {
          operationId: 'createField',
          summary: 'Create a custom field',
          description:
            "A new field (a chart of accounts, departments, classes…) of the caller's account, answered with its svc_id. Needs an Idempotency-Key: a retry with the same key and body answers the first answer again.",
          tags,
          body: FieldCreateBody,
          response: { 200: Field },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) => fieldsService.create(trx, authOf(request), request.body)),
    );

    app.get(
      '/v1/fields/:id',
      {
        config: { scopes: ['fields.read', 'fields.write'] },
        schema: {
          operationId: 'getFieldById',
          summary: 'Get a custom field',
          description:
            "One field of the caller's account by its svc_id; another account's field or an unknown id → 404.",
          tags,
          params: FieldIdParams,
          response: { 200: Field, ...errorResponses(404) },
        },
      },
      async (request) => fieldsService.get(db.direct, authOf(request), request.params.id),
    );

    app.put(
      '/v1/fields/:id',
      {
        config: { scopes: ['fields.write'] },
        schema: {
          operationId: 'updateField',
          summary: 'Update a custom field',
          description: 'Absent or null members are left unchanged; updated_at moves only when something changes.',
          tags,
          params: FieldIdParams,
          body: FieldUpdateBody,
          response: { 200: Field, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) =>
          fieldsService.update(trx, authOf(request), request.params.id, request.body),
        ),
    );

    app.delete(
      '/v1/fields/:id',
      {
        config: { scopes: ['fields.write'] },
        schema: {
          operationId: 'deleteField',
          summary: 'Delete a custom field and its values',
          description:
            "Deletes the field and every value of it, at once; records keep the codings they were booked with. Unknown or another account's field → 404.",
          tags,
          params: FieldIdParams,
          response: { 200: Empty, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) => fieldsService.delete(trx, authOf(request), request.params.id)),
    );
  };
}
