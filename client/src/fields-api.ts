import { paginate } from './pages.js';
import { inChunks } from './batches.js';
import { newIdempotencyKey, type RequestOptions, type Transport, type WriteOptions } from './transport.js';
import type {
  Field,
  FieldCreate,
  FieldListQuery,
  FieldPage,
  FieldUpdate,
  FieldValue,
  FieldValueCreate,
  FieldValueDelete,
  FieldValueListQuery,
  FieldValuePage,
  FieldValueUpdate,
} from './types.js';

const enc = encodeURIComponent;
type ListQuery<Q> = Omit<Q, 'cursor'>;

/* Custom fields and their values: /v1/fields. */

export function fieldsApi(http: Transport) {
  const list = (query: FieldListQuery = {} as FieldListQuery, options?: RequestOptions) =>
    http.request<FieldPage>({ method: 'GET', path: '/v1/fields', query, options });
  return {
    list,
    listAll: (query: ListQuery<FieldListQuery> = {} as FieldListQuery, options?: RequestOptions) =>
      paginate((q) => list(q as FieldListQuery, options), query),
    get: (fieldId: string, options?: RequestOptions) =>
      http.request<Field>({ method: 'GET', path: `/v1/fields/${enc(fieldId)}`, options }),
    create: (field: FieldCreate, options?: WriteOptions) =>
      http.request<Field>({
        method: 'POST',
        path: '/v1/fields',
        body: field,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    update: (fieldId: string, changes: FieldUpdate, options?: WriteOptions) =>
      http.request<Field>({
        method: 'PUT',
        path: `/v1/fields/${enc(fieldId)}`,
        body: changes,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    delete: (fieldId: string, options?: WriteOptions) =>
      http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/v1/fields/${enc(fieldId)}`,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
  };
}

export function fieldValuesApi(http: Transport) {
  /** Up to 1000 values in one atomic batch; answers them in request order. */
  const create = (fieldId: string, items: FieldValueCreate[], options?: WriteOptions) =>
    http.request<{ items: FieldValue[] }>({
      method: 'POST',
      path: `/v1/fields/${enc(fieldId)}/values`,
      body: { items },
      idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
      options,
    });
  /** One page; pass the previous page's next_cursor as `cursor`. */
  const list = (fieldId: string, query: FieldValueListQuery = {} as FieldValueListQuery, options?: RequestOptions) =>
    http.request<FieldValuePage>({
      method: 'GET',
      path: `/v1/fields/${enc(fieldId)}/values`,
      query,
      options,
    });
  const update = (fieldId: string, items: FieldValueUpdate[], options?: WriteOptions) =>
    http.request<{ items: FieldValue[] }>({
      method: 'PUT',
      path: `/v1/fields/${enc(fieldId)}/values`,
      body: { items },
      idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
      options,
    });
  const deleteValues = (fieldId: string, items: FieldValueDelete[], options?: WriteOptions) =>
    http.request<Record<string, never>>({
      method: 'DELETE',
      path: `/v1/fields/${enc(fieldId)}/values`,
      body: { items },
      idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
      options,
    });
  return {
    create,
    get: (fieldId: string, svcId: string, options?: RequestOptions) =>
      http.request<FieldValue>({
        method: 'GET',
        path: `/v1/fields/${enc(fieldId)}/values/${enc(svcId)}`,
        options,
      }),
    list,
    /** Every value matching the filters, page after page: `for await (const v of listAll(fieldId))`. */
    listAll: (
      fieldId: string,
      query: ListQuery<FieldValueListQuery> = {} as FieldValueListQuery,
      options?: RequestOptions,
    ) => paginate((q) => list(fieldId, q as FieldValueListQuery, options), query),
    /**
     * Any number of values, sent 1000 at a time (each chunk atomic, with its own key derived from
     * `options.idempotencyKey`); answers them all in order, or throws SvcBatchError naming the chunks applied, the
     * one that failed and the ones not sent. Sending again with the same key resumes safely.
     */
    createAll: async (fieldId: string, items: FieldValueCreate[], options?: WriteOptions) =>
      inChunks(items, options?.idempotencyKey ?? newIdempotencyKey(), async (chunk, idempotencyKey) => {
        const answer = await create(fieldId, chunk, { ...options, idempotencyKey });
        return answer.items;
      }),
    /** As createAll, for updates. */
    updateAll: async (fieldId: string, items: FieldValueUpdate[], options?: WriteOptions) =>
      inChunks(items, options?.idempotencyKey ?? newIdempotencyKey(), async (chunk, idempotencyKey) => {
        const answer = await update(fieldId, chunk, { ...options, idempotencyKey });
        return answer.items;
      }),
    /** As createAll, for deletes; answers nothing. */
    deleteAll: async (fieldId: string, items: FieldValueDelete[], options?: WriteOptions): Promise<void> => {
      await inChunks(items, options?.idempotencyKey ?? newIdempotencyKey(), async (chunk, idempotencyKey) => {
        await deleteValues(fieldId, chunk, { ...options, idempotencyKey });
        return [];
      });
    },
    update,
    delete: deleteValues,
  };
}
