import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { advanceClock, freezeClock, nowMicros, resetClock } from '../../src/lib/clock.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import { PG_GRANT_BOUND_MICROS } from '../../src/speed/postgres-marks.js';
import { Api } from '../support/api.js';
import { describeEachDialect } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { until } from '../support/wait.js';

const unauthorized = errorBody('UNAUTHORIZED', { message: 'The access token is invalid or expired.' });

/**
 * The grant cache on PostgreSQL (src/speed/postgres-marks.ts): a node keeps a token's grant while no statement of its
 * own may have written, no notification of a grant's change was heard on its listening connection, and at most
 * PG_GRANT_BOUND_MICROS. So a revocation through the node is seen by its very next request; through another node, as
 * soon as the notification arrives (the clock stopped here: nothing else could refuse the token); by another program
 * that sends none, within the bound. Two nodes: the test context's app and a second one on its own pool.
 */
describeEachDialect(
  'the grant cache on PostgreSQL, across nodes',
  (t) => {
    let other: { app: FastifyInstance; db: Db };
    beforeAll(async () => {
      const config = loadConfig({ DATABASE_URL: t.ctx.database.url, RATE_LIMIT_MAX: '0', TOKEN_RATE_LIMIT_MAX: '0' });
      const db = openDatabase(config.database, { poolSize: 3 });
      const app = await buildApp(config, { db, logger: false });
      await app.ready();
      other = { app, db };
      return async () => {
        await app.close();
        await db.close();
      };
    });
    afterEach(() => resetClock());

    /** A caller on both nodes, its grant kept by each (both listen: their marks are defined), the clock stopped. */
    async function cachedOnBoth(): Promise<{ a: Api; b: Api }> {
      const a = await t.ctx.as(['fields.read']);
      const b = new Api(other.app, a.token, a.accountId, a.clientId);
      for (const api of [a, b]) expect((await api.get('/v1/fields')).status).toBe(200);
      await until('both nodes listening', () =>
        [t.ctx.db, other.db].every((db) => db.direct.changeMark?.() !== undefined),
      );
      for (const api of [a, b]) expect((await api.get('/v1/fields')).status).toBe(200);
      freezeClock();
      // Just past the start of a period, so that the stopped clock's readings (a microsecond each) stay in it.
      advanceClock(PG_GRANT_BOUND_MICROS - (nowMicros() % PG_GRANT_BOUND_MICROS) + 1);
      for (const api of [a, b]) expect((await api.get('/v1/fields')).status).toBe(200);
      return { a, b };
    }

    it('refuses a client revoked through a node on that node at once, and on the other once notified', async () => {
      const { a, b } = await cachedOnBoth();
      const bystander = await t.ctx.as(['fields.read']);
      await authService.revokeClient(t.ctx.db, a.clientId);

      const refused = await a.get('/v1/fields');
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 401, body: unauthorized });
      const seen = await until('the other node refusing the revoked client', async () => {
        const res = await b.get('/v1/fields');
        return res.status === 401 && res;
      });
      expect(seen.body).toEqual(unauthorized);
      expect((await bystander.get('/v1/fields')).status).toBe(200);
    });

    it('sees a token expired through the other node once notified, with the clock stopped', async () => {
      const { a, b } = await cachedOnBoth();
      await other.db.direct
        .updateTable('access_tokens')
        .set({ expires_at: 1 })
        .where('client_id', '=', a.clientId)
        .execute();
      expect((await b.get('/v1/fields')).status).toBe(401);
      await until('the first node refusing the expired token', async () => (await a.get('/v1/fields')).status === 401);
    });

    it('keeps answering a client whose revocation was rolled back, on both nodes', async () => {
      const { a, b } = await cachedOnBoth();
      const undone = new Error('rolled back');
      await expect(
        t.ctx.db.write(async (ex) => {
          await authService.revokeClientIn(ex, a.clientId);
          throw undone;
        }),
      ).rejects.toBe(undone);
      for (const api of [a, b]) expect((await api.get('/v1/fields')).status).toBe(200);
      const stored = await t.ctx.db.direct
        .selectFrom('oauth_clients')
        .select('revoked_at')
        .where('client_id', '=', a.clientId)
        .executeTakeFirstOrThrow();
      expect(stored.revoked_at).toBeNull();
    });

    it('answers from memory at most for the bound when a change comes without a notification', async () => {
      const { a, b } = await cachedOnBoth();
      // Another program (psql, say) sends no notification.
      const raw = new pg.Client({ connectionString: t.ctx.database.url });
      await raw.connect();
      try {
        await raw.query('update oauth_clients set revoked_at = $1 where client_id = $2', [nowMicros(), a.clientId]);
      } finally {
        await raw.end();
      }
      // Still answered from memory within the period (the bound that docs/performance.md states)…
      expect((await a.get('/v1/fields')).status).toBe(200);
      expect((await b.get('/v1/fields')).status).toBe(200);
      // …and refused by both once it has passed.
      advanceClock(PG_GRANT_BOUND_MICROS);
      for (const api of [a, b]) {
        const res = await api.get('/v1/fields');
        expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: unauthorized });
      }
    });

    it('keeps nothing while its listening connection is lost, and listens again', async () => {
      const { a, b } = await cachedOnBoth();
      const raw = new pg.Client({ connectionString: t.ctx.database.url });
      await raw.connect();
      try {
        await raw.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen %'`,
        );
        await until('both nodes without a mark', () =>
          [t.ctx.db, other.db].every((db) => db.direct.changeMark?.() === undefined),
        );
        await raw.query('update access_tokens set expires_at = 1 where client_id = $1', [a.clientId]);
      } finally {
        await raw.end();
      }
      // No notification, the clock stopped: only reading the grant again refuses it.
      for (const api of [a, b]) expect((await api.get('/v1/fields')).status).toBe(401);
      await until('both nodes listening again', () =>
        [t.ctx.db, other.db].every((db) => db.direct.changeMark?.() !== undefined),
      );
    });
  },
  {},
  { only: 'postgres' },
);
