import { Transport, newIdempotencyKey } from './transport.js';
export { SvcApiError } from './errors.js';
const enc = encodeURIComponent;
/** Follows next_cursor until the end, yielding each item once. */
async function* paginate(fetchPage, query) {
    let cursor;
    do {
        const page = await fetchPage({ ...query, ...(cursor ? { cursor } : {}) });
        yield* page.items;
        cursor = page.next_cursor ?? undefined;
    } while (cursor);
}
/**
 * The svc API client. `new SvcClient({ baseUrl, clientId, clientSecret })` fetches and refreshes tokens
 * itself; `new SvcClient({ baseUrl, token })` uses a given token. Reads, and writes (which always carry an
 * Idempotency-Key), are retried with exponential backoff and jitter on 429, 5xx and network errors.
 */
export class SvcClient {
    #http;
    constructor(options) {
        this.#http = new Transport(options);
    }
    fields = {
        list: (query = {}, options) => this.#http.request({ method: 'GET', path: '/v1/fields', query: query, options }),
        listAll: (query = {}, options) => paginate((q) => this.fields.list(q, options), query),
        get: (fieldId, options) => this.#http.request({ method: 'GET', path: `/v1/fields/${enc(fieldId)}`, options }),
        create: (field, options) => this.#http.request({
            method: 'POST',
            path: '/v1/fields',
            body: field,
            idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
            options,
        }),
        update: (fieldId, changes, options) => this.#http.request({
            method: 'PUT',
            path: `/v1/fields/${enc(fieldId)}`,
            body: changes,
            idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
            options,
        }),
        delete: (fieldId, options) => this.#http.request({
            method: 'DELETE',
            path: `/v1/fields/${enc(fieldId)}`,
            idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
            options,
        }),
    };
    fieldValues = {
        /** Up to 1000 values in one atomic batch; answers them in request order. */
        create: (fieldId, items, options) => this.#http.request({
            method: 'POST',
            path: `/v1/fields/${enc(fieldId)}/values`,
            body: { items },
            idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
            options,
        }),
        get: (fieldId, svcId, options) => this.#http.request({ method: 'GET', path: `/v1/fields/${enc(fieldId)}/values/${enc(svcId)}`, options }),
        /** One page; pass the previous page's next_cursor as `cursor`. */
        list: (fieldId, query = {}, options) => this.#http.request({
            method: 'GET',
            path: `/v1/fields/${enc(fieldId)}/values`,
            query: query,
            options,
        }),
        /** Every value matching the filters, page after page: `for await (const v of listAll(fieldId))`. */
        listAll: (fieldId, query = {}, options) => paginate((q) => this.fieldValues.list(fieldId, q, options), query),
        update: (fieldId, items, options) => this.#http.request({
            method: 'PUT',
            path: `/v1/fields/${enc(fieldId)}/values`,
            body: { items },
            idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
            options,
        }),
        delete: (fieldId, items, options) => this.#http.request({
            method: 'DELETE',
            path: `/v1/fields/${enc(fieldId)}/values`,
            body: { items },
            idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
            options,
        }),
    };
    accountingRecords = {
        get: (recordId, query = {}, options) => this.#http.request({
            method: 'GET',
            path: `/v3/accounting/records/${enc(recordId)}`,
            query,
            options,
        }),
        /** One page of records ordered by (updated_at, id). */
        query: (query = {}, options) => this.#http.request({ method: 'GET', path: '/v3/accounting/records', query: query, options }),
        /** Every matching record, following next_cursor. */
        queryAll: (query = {}, options) => paginate((q) => this.accountingRecords.query(q, options), query),
        reportExportResults: (results, options) => this.#http.request({
            method: 'POST',
            path: '/v3/accounting/records/export-results',
            body: { results },
            idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
            options,
        }),
    };
}
//# sourceMappingURL=index.js.map