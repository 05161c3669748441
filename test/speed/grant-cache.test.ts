import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { svc } from '../support/processes.js';
import { until } from '../support/wait.js';

const unauthorized = errorBody('UNAUTHORIZED', { message: 'The access token is invalid or expired.' });

/**
 * The grant cache (src/speed/grant-cache.ts): a token's grant answers from memory only while SQLite's change mark
 * holds, so a revocation anywhere — another process, another connection, this one — is seen by the very next
 * request, however often the token was used before. On PostgreSQL the same holds for this node's own writes; another
 * process's are seen once notified (grant-cache-postgres.test.ts: two nodes, the bound without a notification).
 */
describeEachDialect('the grant cache', (t) => {
  it('sees a revocation by another process (svc clients revoke) on the next request', async () => {
    const api = await t.ctx.as(['fields.read']);
    const bystander = await t.ctx.as(['fields.read']);
    for (let i = 0; i < 3; i++) expect((await api.get('/v1/fields')).status).toBe(200);
    expect((await bystander.get('/v1/fields')).status).toBe(200);

    const revoked = await svc(['clients', 'revoke', api.clientId], { DATABASE_URL: t.ctx.database.url });
    expect(revoked.code).toBe(0);

    // PostgreSQL: another process is another node, told by notification (at most 1 s later without one).
    const refused =
      t.dialect === 'postgres'
        ? await until('the revocation noticed', async () => {
            const res = await api.get('/v1/fields');
            return res.status === 401 && res;
          })
        : await api.get('/v1/fields');
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 401, body: unauthorized });
    expect((await bystander.get('/v1/fields')).status).toBe(200);
  });

  it('sees a token expired by a write of this process on the next request', async () => {
    const api = await t.ctx.as(['fields.read']);
    for (let i = 0; i < 3; i++) expect((await api.get('/v1/fields')).status).toBe(200);
    await t.ctx.db.direct
      .updateTable('access_tokens')
      .set({ expires_at: 1 })
      .where('client_id', '=', api.clientId)
      .execute();
    const refused = await api.get('/v1/fields');
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 401, body: unauthorized });
  });

  it('answers each token with its own grant while nothing changes: 20 clients, 5 requests each, interleaved', async () => {
    const callers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.ctx.as(i % 2 === 0 ? ['fields.read'] : ['field_values.read'])),
    );
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(callers.map((api) => api.get('/v1/fields')));
      expect(answers.map((res) => res.status)).toEqual(callers.map((_, i) => (i % 2 === 0 ? 200 : 403)));
    }
  });
});
