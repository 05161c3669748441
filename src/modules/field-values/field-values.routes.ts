import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { fieldValuesService } from './field-values.service.js';
import {
  Empty,
  FieldValue,
  FieldValueCreateBody,
  FieldValueDeleteBody,
  FieldValueIdParams,
  FieldValueItems,
  FieldValueListQuery,
  FieldValuePage,
  FieldValueParams,
  FieldValueSearchQuery,
  FieldValueUpdateBody,
} from './field-values.schemas.js';
import { sendPrewritten } from '../../http/serialization.js';

const tags = ['Field Values'];

export function fieldValuesRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/fields/:field_id/values',
      {
        config: { scopes: ['field_values.read', 'field_values.write'] },
        schema: {
          operationId: 'listFieldValues',
          summary: 'List custom field values',
          description:
            'Values of one field in creation order, a page at a time. Each array filter matches any of its entries; different filters must all match.',
          tags,
          params: FieldValueParams,
          querystring: FieldValueListQuery,
          response: { 200: FieldValuePage, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        const q = request.query;
        const page = await fieldValuesService.list(db.direct, authOf(request), request.params.field_id, {
          svcIds: q['svc_id[]'],
          remoteIds: q['remote_id[]'],
          valueIds: q['value_id[]'],
          value: q.value,
          cursor: q.cursor,
          limit: q.limit ?? 100,
        });
        return sendPrewritten(reply, page);
      },
    );

    app.post(
      '/v1/fields/:field_id/values',
      {
        config: { scopes: ['field_values.write'], idempotency: 'required' },
        schema: {
          operationId: 'createFieldValues',
          summary: 'Create custom field values',
          description:
            'Creates 1 to 1000 values of a field at once, all or none. remote_id and value_id must be unique within the field (409 CONFLICT names the clashing items).',
          tags,
          params: FieldValueParams,
          body: FieldValueCreateBody,
          response: { 200: FieldValueItems, ...errorResponses(404, 409) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) =>
          fieldValuesService.create(trx, authOf(request), request.params.field_id, request.body.items),
        ),
    );

    app.put(
      '/v1/fields/:field_id/values',
      {
        config: { scopes: ['field_values.write'] },
        schema: {
          operationId: 'updateFieldValues',
          summary: 'Update custom field values',
          description:
            'Updates 1 to 1000 values at once, all or none, each addressed by exactly one of svc_id, remote_id, value_id. Absent or null data members are left unchanged; updated_at moves only when something changes.',
          tags,
          params: FieldValueParams,
          body: FieldValueUpdateBody,
          response: { 200: FieldValueItems, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) =>
          fieldValuesService.update(trx, authOf(request), request.params.field_id, request.body.items),
        ),
    );

    app.delete(
      '/v1/fields/:field_id/values',
      {
        config: { scopes: ['fields.write'] },
        schema: {
          operationId: 'deleteFieldValues',
          summary: 'Delete custom field values',
          description:
            'Deletes 1 to 1000 values at once, all or none, each addressed by exactly one of svc_id, remote_id, value_id.',
          tags,
          params: FieldValueParams,
          body: FieldValueDeleteBody,
          response: { 200: Empty, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) =>
          fieldValuesService.delete(trx, authOf(request), request.params.field_id, request.body.items),
        ),
    );

    app.get(
      '/internal/v1/fields/:field_id/values/search',
      {
        config: {
          scopes: ['field_values.read', 'field_values.write', 'accounting.record.review', 'accounting.record.admin'],
        },
        schema: {
          operationId: 'searchFieldValues',
          summary: "Search a field's values (coding pickers)",
          description:
            'Values whose value starts with the text first, in order of their lower-cased value; then those whose value or remote_id contains it, in creation order. Three characters and more are served by a trigram index; shorter text matches the start of the value only. Disabled values only when asked.',
          tags: ['Internal: review workflow'],
          params: FieldValueParams,
          querystring: FieldValueSearchQuery,
          response: { 200: FieldValueItems, ...errorResponses(404) },
        },
      },
      async (request) =>
        fieldValuesService.searchValues(db.direct, authOf(request), request.params.field_id, {
          text: request.query.q,
          limit: request.query.limit ?? 20,
          includeDisabled: request.query.include_disabled ?? false,
        }),
    );

    app.get(
      '/v1/fields/:field_id/values/:svc_id',
      {
        config: { scopes: ['field_values.read', 'field_values.write'] },
        schema: {
          operationId: 'getFieldValueById',
          summary: 'Get a field value',
          description: "One value of a field of the caller's account, by its svc_id; unknown field or value → 404.",
          tags,
          params: FieldValueIdParams,
          response: { 200: FieldValue, ...errorResponses(404) },
        },
      },
      async (request) =>
        fieldValuesService.get(db.direct, authOf(request), request.params.field_id, request.params.svc_id),
    );
  };
}
