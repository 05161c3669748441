import { expect, it } from 'vitest';
import { advanceClock, freezeClock, nowMicros } from '../../src/lib/clock.js';
import { ALL_SCOPES } from '../../src/modules/auth/scopes.js';
import { openDatabase } from '../../src/db/open.js';
import { authService, hashSecret } from '../../src/modules/auth/auth.service.js';
import { describeEachDialect } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { isFieldsRoute, routeScopes, sampleRequest } from '../support/routes.js';
import { storedFields } from '../support/stored.js';
import { until } from '../support/wait.js';

// Expiry is measured on the service's clock, which only this file moves: a token expires when the test says so.
freezeClock();

const unauthorized = errorBody('UNAUTHORIZED');
const INVALID_TOKEN =
  'Bearer realm="svc", error="invalid_token", error_description="The access token is invalid or expired"';

describeEachDialect(
  'bearer tokens',
  (t) => {
    it('answers 401 UNAUTHORIZED with a bare Bearer challenge when no token is sent', async () => {
      for (const authorization of [undefined, '', 'Basic Zm9vOmJhcg==']) {
        const res = await t.ctx.app.inject({
          method: 'GET',
          url: '/v1/fields',
          headers: authorization === undefined ? {} : { authorization },
        });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual(unauthorized);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="svc"');
        expect(res.headers['x-request-id']).toBe(res.json().request_id);
        expect(res.json().message).toBe(
          authorization?.startsWith('Basic')
            ? 'HTTP Basic credentials are not accepted here: get a token at POST /oauth2/token (client credentials) and send it as Authorization: Bearer <token>.'
            : 'Authentication credentials are missing.',
        );
      }
    });

    it('answers 401 invalid_token for unknown, malformed, expired and revoked-client tokens', async () => {
      const expired = await t.ctx.as(['fields.read']);
      await t.ctx.db.direct
        .updateTable('access_tokens')
        .set({ expires_at: nowMicros() - 1 })
        .where('token_hash', '=', hashSecret(expired.token!))
        .execute();
      const revoked = await t.ctx.as(['fields.read']);
      expect((await revoked.get('/v1/fields')).status).toBe(200);
      // Revoked in the table only (as by another process): the token row is still there.
      await t.ctx.db.direct
        .updateTable('oauth_clients')
        .set({ revoked_at: 1 })
        .where('client_id', '=', revoked.clientId)
        .execute();

      for (const authorization of [
        'Bearer svc_at_unknown',
        'Bearer not a token',
        'Bearer',
        `Bearer ${expired.token}`,
        `Bearer ${revoked.token}`,
      ]) {
        const res = await t.ctx.app.inject({ method: 'GET', url: '/v1/fields', headers: { authorization } });
        expect({ authorization, status: res.statusCode }).toEqual({ authorization, status: 401 });
        expect(res.json()).toEqual(unauthorized);
        expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN);
      }
    });

    it('answers 401 on the first request after a revocation or expiry, however often the token was used before', async () => {
      // Another connection (as `svc clients revoke` in another process) and the app's own connection.
      const other = openDatabase(t.ctx.config.database);
      try {
        for (const [name, writer] of [
          ['another connection', other],
          ['the same connection', t.ctx.db],
        ] as const) {
          const api = await t.ctx.as(['fields.read']);
          const bystander = await t.ctx.as(['fields.read']);
          for (let i = 0; i < 3; i++) expect((await api.get('/v1/fields')).status).toBe(200);
          await authService.revokeClient(writer, api.clientId);
          // PostgreSQL: another pool is another node; its revocation reaches this one's grant cache by notification
          // (at most 1 s later: test/speed/grant-cache-postgres.test.ts). Through the node's own pool, at once.
          const throughOtherNode = t.dialect === 'postgres' && writer === other;
          /** The next answer to `caller`; through another node, the first 401 once the notification came. */
          const nextAnswer = (caller: typeof api, what: string) =>
            throughOtherNode
              ? until(what, async () => {
                  const res = await caller.get('/v1/fields');
                  return res.status === 401 && res;
                })
              : caller.get('/v1/fields');
          const refused = await nextAnswer(api, 'the revocation noticed');
          expect({ name, status: refused.status, body: refused.body }).toEqual({
            name,
            status: 401,
            body: unauthorized,
          });
          expect(refused.headers['www-authenticate']).toBe(INVALID_TOKEN);
          expect((await bystander.get('/v1/fields')).status).toBe(200);

          const expiring = await t.ctx.as(['fields.read']);
          expect((await expiring.get('/v1/fields')).status).toBe(200);
          await writer.direct
            .updateTable('access_tokens')
            .set({ expires_at: nowMicros() + 300_000 })
            .where('token_hash', '=', hashSecret(expiring.token!))
            .execute();
          expect((await expiring.get('/v1/fields')).status).toBe(200);
          advanceClock(300_000);
          // Nothing was written since the last request: the grant may come from memory, its expiry still holds.
          // PostgreSQL, another pool: the new expiry reaches this node's grant cache by notification, as the
          // revocation above does (it failed once, on a loaded machine, when asked before the notification came).
          const expired = await nextAnswer(expiring, 'the new expiry noticed');
          expect({ name, status: expired.status, body: expired.body }).toEqual({
            name,
            status: 401,
            body: unauthorized,
          });
        }
      } finally {
        await other.close();
      }
    });

    it('lets a token work until TOKEN_TTL_SECONDS and says so in expires_in', async () => {
      const c = await t.ctx.newClient(['fields.read']);
      const res = await t.ctx.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        payload: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret },
      });
      expect(res.json().expires_in).toBe(60);
      const row = await t.ctx.db.direct
        .selectFrom('access_tokens')
        .select(['created_at', 'expires_at'])
        .where('token_hash', '=', hashSecret(res.json().access_token))
        .executeTakeFirstOrThrow();
      expect(row.expires_at - row.created_at).toBe(60_000_000);
    });

    it('answers 403 FORBIDDEN with insufficient_scope naming the scopes', async () => {
      const api = await t.ctx.as(['accounting.record.read']);
      const res = await api.create('/v1/fields', { name: 'x', group: 'USER' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(
        errorBody('FORBIDDEN', {
          message: 'This operation requires one of the scopes: fields.write.',
          details: { required_scopes: ['fields.write'] },
        }),
      );
      expect(res.headers['www-authenticate']).toBe(
        'Bearer realm="svc", error="insufficient_scope", scope="fields.write"',
      );
      const list = await api.get('/v1/fields');
      expect(list.headers['www-authenticate']).toBe(
        'Bearer realm="svc", error="insufficient_scope", scope="fields.read fields.write"',
      );
      expect(await storedFields(t.ctx, api.accountId)).toEqual([]);
    });

    it('allows each /v1/fields operation exactly for the scopes its OpenAPI security lists', async () => {
      const doc = (await t.ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const table = routeScopes(doc).filter(isFieldsRoute);
      expect(table.map((r) => `${r.method} ${r.path} ${r.scopes.join(' ')}`).sort()).toEqual([
        'DELETE /v1/fields/{id} fields.write',
        'GET /v1/fields fields.read fields.write',
        'GET /v1/fields/{id} fields.read fields.write',
        'POST /v1/fields fields.write',
        'PUT /v1/fields/{id} fields.write',
      ]);
      for (const scope of ALL_SCOPES) {
        const api = await t.ctx.as([scope]);
        for (const route of table) {
          const res = await api.request(route.method, ...sampleRequest(route));
          const allowed = route.scopes.includes(scope);
          const outcome = { scope, route: `${route.method} ${route.path}`, forbidden: res.status === 403 };
          expect(outcome).toEqual({ ...outcome, forbidden: !allowed });
          if (allowed)
            expect([200, 400, 404]).toContain(res.status); // past the scope check: validation or lookup decides
          else expect(res.body.error_code).toBe('FORBIDDEN');
        }
      }
    });
  },
  { TOKEN_TTL_SECONDS: '60' },
);
