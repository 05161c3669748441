import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { storedFields, storedKeys } from '../support/stored.js';

const shape = (error_code: string, details: unknown = null) => ({
  ...errorBody(error_code, { details }),
  request_id: expect.stringMatching(/^req_[A-Za-z0-9_-]{16}$/),
});

describeEachDialect(
  'error shape',
  (t) => {
    it('reports every validation problem with its JSON pointer, query and header ones prefixed', async () => {
      const api = await t.ctx.as(['fields.write']);
      const body = await api.create('/v1/fields', { name: 7, group: 'X', extra: true });
      expect(body.status).toBe(400);
      expect(body.body).toEqual(shape('INVALID_REQUEST', { errors: expect.any(Array) }));
      expect(body.body.details.errors).toEqual([
        { path: '/extra', message: 'is not allowed' },
        { path: '/name', message: expect.any(String) },
        { path: '/group', message: 'must be one of: ACCOUNTING, USER, ERP (got "X")' },
      ]);
      const missing = await api.create('/v1/fields', {});
      expect(missing.body.details.errors).toEqual([
        { path: '/name', message: 'is required' },
        { path: '/group', message: 'is required' },
      ]);
      const query = await api.get('/v1/fields', { limit: 'many', colour: 'red' });
      expect(query.status).toBe(400);
      expect(query.body.details.errors).toEqual([
        { path: '/query/colour', message: 'is not allowed' },
        { path: '/query/limit', message: expect.any(String) },
      ]);
      // every part of the request is checked, not only the first that fails
      const everywhere = await api.request('PUT', `/v1/fields/${'i'.repeat(256)}`, {
        body: { name: '', colour: 'red' },
        headers: { 'idempotency-key': 'k'.repeat(256) },
      });
      expect(everywhere.body.details.errors).toEqual([
        { path: '/params/id', message: expect.any(String) },
        { path: '/colour', message: 'is not allowed' },
        { path: '/name', message: expect.any(String) },
        { path: '/headers/idempotency-key', message: expect.any(String) },
      ]);
      const bodyAndHeader = await api.post('/v1/fields', { group: 'USER' });
      expect(bodyAndHeader.body.details.errors).toEqual([
        { path: '/name', message: 'is required' },
        { path: '/headers/idempotency-key', message: 'is required' },
      ]);
      const header = await api.post('/v1/fields', { name: 'n', group: 'USER' }, { 'idempotency-key': '' });
      expect(header.body.details.errors).toEqual([{ path: '/headers/idempotency-key', message: expect.any(String) }]);
      expect(await storedFields(t.ctx, api.accountId)).toEqual([]);
    });

    it('answers 404 NOT_FOUND for an unknown route, with or without a token', async () => {
      for (const headers of [{}, { authorization: 'Bearer nonsense' }]) {
        const res = await t.ctx.app.inject({ method: 'GET', url: '/v2/nothing?x=1', headers });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ ...shape('NOT_FOUND'), message: 'Route GET /v2/nothing not found.' });
        expect(res.headers['x-request-id']).toBe(res.json().request_id);
      }
    });

    it('names the parameter meant when one differs from an allowed one by its brackets', async () => {
      const api = await t.ctx.as(['field_values.read', 'fields.write', 'accounting.record.read']);
      const fieldId = await api.newField();
      const values = await api.get(`/v1/fields/${fieldId}/values`, { remote_id: 'x' });
      expect(values.status).toBe(400);
      expect(values.body.details.errors).toEqual([
        { path: '/query/remote_id', message: 'is not allowed; did you mean remote_id[]?' },
      ]);
      const records = await api.get('/v3/accounting/records', { 'ids[]': 'accr_x' });
      expect(records.body.details.errors).toEqual([
        { path: '/query/ids[]', message: 'is not allowed; did you mean ids?' },
      ]);
    });

    it('answers 405 with Allow for a known path asked with a method it does not serve; / leads to /docs', async () => {
      const cases: [string, string, string[]][] = [
        ['PATCH', '/v1/fields', ['GET', 'HEAD', 'POST']],
        ['DELETE', '/v3/accounting/records/accr_x', ['GET', 'HEAD']],
        ['PUT', '/internal/v1/accounting/records/accr_x/coding', ['POST']],
        ['POST', '/healthz', ['GET', 'HEAD']],
      ];
      for (const [method, url, allowed] of cases) {
        const res = await t.ctx.app.inject({ method: method as 'POST', url });
        expect({ url, status: res.statusCode }).toEqual({ url, status: 405 });
        expect(res.headers.allow).toBe(allowed.join(', '));
        expect(res.json()).toEqual({
          ...shape('METHOD_NOT_ALLOWED'),
          message: `${url} does not take ${method}; it takes ${allowed.join(', ')}.`,
          details: { allowed_methods: allowed },
        });
      }
      const root = await t.ctx.app.inject({ method: 'GET', url: '/' });
      expect([root.statusCode, root.headers.location]).toEqual([302, '/docs']);
    });

    it('answers 415 for text and form bodies, 400 for malformed or empty JSON', async () => {
      const api = await t.ctx.as(['fields.write']);
      const send = (payload: string, type: string) =>
        api.app.inject({
          method: 'POST',
          url: '/v1/fields',
          payload,
          headers: { authorization: `Bearer ${api.token}`, 'content-type': type, 'idempotency-key': 'k' },
        });
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await send('name=x&group=USER', type);
        expect({ type, status: res.statusCode }).toEqual({ type, status: 415 });
        expect(res.json()).toEqual(shape('UNSUPPORTED_MEDIA_TYPE'));
      }
      const malformed = await send('{"name": "x",', 'application/json');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toEqual(
        shape('INVALID_REQUEST', { errors: [{ path: '', message: 'is not valid JSON' }] }),
      );
      const empty = await send('', 'application/json');
      expect(empty.statusCode).toBe(400);
      expect(empty.json()).toEqual(
        shape('INVALID_REQUEST', { errors: [{ path: '', message: 'is required: send a JSON body' }] }),
      );
      const nothing = await api.app.inject({
        method: 'POST',
        url: '/v1/fields',
        headers: { authorization: `Bearer ${api.token}`, 'idempotency-key': 'k' },
      });
      expect(nothing.statusCode).toBe(400);
      expect(nothing.json().error_code).toBe('INVALID_REQUEST');
      expect(await storedKeys(t.ctx, api.clientId)).toEqual([]);
    });

    it('answers 413 PAYLOAD_TOO_LARGE over BODY_LIMIT_BYTES', async () => {
      const api = await t.ctx.as(['fields.write']);
      const res = await api.create('/v1/fields', { name: 'x'.repeat(2000), group: 'USER' });
      expect(res.status).toBe(413);
      expect(res.body).toEqual(shape('PAYLOAD_TOO_LARGE', { limit_bytes: 1024 }));
      expect(res.headers['x-request-id']).toBe(res.body.request_id);
      const fits = await api.create('/v1/fields', { name: 'x'.repeat(200), group: 'USER' });
      expect(fits.status).toBe(200);
    });

    it('answers 500 INTERNAL_ERROR without leaking anything internal', async () => {
      const res = await t.ctx.app.inject({ method: 'GET', url: '/test/explode' });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        ...shape('INTERNAL_ERROR'),
        message: 'An unexpected error occurred. Please try again later.',
      });
      expect(res.body).not.toMatch(/SELECT|secret_hash|stack|at /i);
      const coded = await t.ctx.app.inject({ method: 'GET', url: '/test/explode-coded' });
      expect(coded.statusCode).toBe(500);
      expect(coded.json()).toEqual({
        ...shape('INTERNAL_ERROR'),
        message: 'An unexpected error occurred. Please try again later.',
      });
      expect(coded.body).not.toMatch(/relation|oauth/i);
    });

    it('echoes a valid X-Request-Id and replaces an invalid one, on successes and errors', async () => {
      const api = await t.ctx.as(['fields.read']);
      const cases: ['GET' | 'POST', string][] = [
        ['GET', '/v1/fields'],
        ['GET', '/v1/fields/nope'],
        ['GET', '/nowhere'],
        ['GET', '/healthz'],
        ['POST', '/oauth2/token'],
      ];
      for (const [method, url] of cases) {
        const ok = await api.request(method, url, { headers: { 'x-request-id': 'trace-42:abc.DEF_1' } });
        expect({ url, id: ok.headers['x-request-id'] }).toEqual({ url, id: 'trace-42:abc.DEF_1' });
        if (ok.status >= 400 && ok.body.request_id) expect(ok.body.request_id).toBe('trace-42:abc.DEF_1');
        for (const bad of ['has space', 'x'.repeat(129), '<script>']) {
          const res = await api.request(method as 'GET', url!, { headers: { 'x-request-id': bad } });
          expect(res.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
        }
      }
    });
  },
  { BODY_LIMIT_BYTES: '1024' },
  {
    beforeReady(app) {
      app.get('/test/explode', async () => {
        throw new Error('SELECT secret_hash FROM oauth_clients WHERE client_id = $1: deadlock detected');
      });
      app.get('/test/explode-coded', async () => {
        throw Object.assign(new Error('relation "oauth_clients" does not exist'), {
          code: '42P01',
          statusCode: undefined,
        });
      });
    },
  },
);
