import { expect, it } from 'vitest';
import { EXPORT_RESULTS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { allRecords, clientOf, faultsUrl, newAccount, operator, SANDBOX } from './support/sandbox.js';

const expireUrl = (clientId: string) => `/sandbox/v1/clients/${clientId}/tokens/expire`;

/** Faults narrowed to a method and a route, and tokens expired on demand (issue 36, item 3). */
describeEachDialect(
  'sandbox faults per route and method; tokens expired now',
  (t) => {
    it('meets only the requests its method and route select; the narrowest fault of a client wins', async () => {
      const { creds, api } = await newAccount(t.ctx, { scenario: 'export-failures', seed: 7 });
      const url = faultsUrl(creds.client_id);
      const onExport = await operator(t.ctx).post(url, {
        kind: '503',
        count: 3,
        method: 'POST',
        route: EXPORT_RESULTS,
      });
      expect(onExport.status, onExport.text).toBe(200);
      expect(onExport.body).toMatchObject({ kind: '503', count: 3, method: 'POST', route: EXPORT_RESULTS });
      // A second fault on another selector stays beside it: a GET of one record (a route with a parameter).
      const onRecord = await operator(t.ctx).post(url, {
        kind: '429',
        count: 1,
        method: 'GET',
        route: '/v3/accounting/records/{record_id}',
      });
      expect(onRecord.status, onRecord.text).toBe(200);
      const listed = await operator(t.ctx).get(url);
      expect(listed.body.items.map((f: { kind: string; route: string }) => [f.kind, f.route])).toEqual([
        ['429', '/v3/accounting/records/{record_id}'],
        ['503', EXPORT_RESULTS],
      ]);

      // Other routes and methods run normally.
      const records = await allRecords(api);
      const id: string = records.find((r: { review_status: string }) => r.review_status === 'READY_FOR_EXPORT').id;
      expect((await api.get('/v1/fields')).status).toBe(200);
      // The GET of one record meets its own fault once, then runs.
      expect((await api.get(`/v3/accounting/records/${id}`)).status).toBe(429);
      expect((await api.get(`/v3/accounting/records/${id}`)).status).toBe(200);

      // The next three POSTs of export results answer 503 and change nothing; the fourth runs.
      const report = { results: [{ accounting_record_id: id, success: { reference_id: 'JE-1' } }] };
      for (let i = 0; i < 3; i++) {
        const refused = await api.post(EXPORT_RESULTS, report);
        expect([refused.status, refused.body]).toEqual([503, errorBody('SERVICE_UNAVAILABLE')]);
        expect((await api.get(`/v3/accounting/records/${id}`)).body.review_status).toBe('READY_FOR_EXPORT');
      }
      const ran = await api.post(EXPORT_RESULTS, report);
      expect(ran.status, ran.text).toBe(200);
      expect((await operator(t.ctx).get(url)).body.items).toEqual([]);

      // A fault on any route and one on this route: a request of this route meets the narrower only.
      await operator(t.ctx).post(url, { kind: '500', fraction: 1 });
      await operator(t.ctx).post(url, { kind: '503', count: 1, route: '/v1/fields' });
      expect((await api.get('/v1/fields')).status).toBe(503);
      expect((await api.get('/v1/fields')).status).toBe(500);
      expect((await api.get('/v3/accounting/records', { limit: '1' })).status).toBe(500);
      const cleared = await operator(t.ctx).request('DELETE', url);
      expect([cleared.status, cleared.body]).toEqual([200, {}]);
      expect((await api.get('/v1/fields')).status).toBe(200);
    });

    it('refuses a route that is not one of the API, or not with that method, naming it', async () => {
      const { creds } = await newAccount(t.ctx);
      const url = faultsUrl(creds.client_id);
      for (const [body, message] of [
        [{ route: '/v3/accounting/record' }, /is not a route of this service .*\(got "\/v3\/accounting\/record"\)/],
        [{ route: '/v3/accounting/records/123' }, /is not a route of this service/],
        [{ route: EXPORT_RESULTS, method: 'GET' }, /is not a GET route of this service/],
        [{ route: '/oauth2/token' }, /names an API route/],
        [{ route: '/sandbox/v1/accounts' }, /names an API route/],
      ] as const) {
        const refused = await operator(t.ctx).post(url, { kind: '500', ...body });
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.details.errors).toEqual([{ path: '/route', message: expect.stringMatching(message) }]);
      }
      const badMethod = await operator(t.ctx).post(url, { kind: '500', method: 'TRACE' });
      expect(badMethod.status).toBe(400);
      expect(badMethod.body.details.errors[0].path).toBe('/method');
      expect((await operator(t.ctx).get(url)).body.items).toEqual([]);
    });

    it('expires the client’s tokens now, or one of them; the client fetches another; others are untouched', async () => {
      const { creds, api } = await newAccount(t.ctx);
      const second = await clientOf(t.ctx, creds);
      const other = await newAccount(t.ctx);
      const one = await operator(t.ctx).post(expireUrl(creds.client_id), { access_token: second.token });
      expect([one.status, one.body]).toEqual([200, { expired: 1 }]);
      const expired = await second.get('/v1/fields');
      expect(expired.status).toBe(401);
      expect(expired.headers['www-authenticate']).toContain('error="invalid_token"');
      expect((await api.get('/v1/fields')).status).toBe(200);
      // The same token again: it is not a live one any more.
      const again = await operator(t.ctx).post(expireUrl(creds.client_id), { access_token: second.token });
      expect([again.status, again.body.error_code]).toEqual([404, 'NOT_FOUND']);
      // Another client's token is not this client's.
      const foreign = await operator(t.ctx).post(expireUrl(creds.client_id), { access_token: other.api.token });
      expect(foreign.status).toBe(404);
      expect((await other.api.get('/v1/fields')).status).toBe(200);

      // No body: every live token of the client.
      const all = await t.ctx.app.inject({
        method: 'POST',
        url: expireUrl(creds.client_id),
        headers: { authorization: `Bearer ${operator(t.ctx).token}` },
      });
      expect([all.statusCode, all.json()]).toEqual([200, { expired: 1 }]);
      expect((await api.get('/v1/fields')).status).toBe(401);
      expect((await (await clientOf(t.ctx, creds)).get('/v1/fields')).status).toBe(200);
      expect((await other.api.get('/v1/fields')).status).toBe(200);
      // Not the sandbox's client: 404; no operator token: 401.
      expect((await operator(t.ctx).post(expireUrl('cli_nobody'), {})).status).toBe(404);
      expect((await api.post(expireUrl(creds.client_id), {})).status).toBe(401);
    });
  },
  SANDBOX,
);
