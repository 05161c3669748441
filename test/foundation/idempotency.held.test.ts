import type { FastifyInstance } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { errors } from '../../src/errors.js';
import { authOf } from '../../src/http/auth.js';
import { writeTransaction } from '../../src/http/idempotency.js';
import { fieldsService } from '../../src/modules/fields/fields.service.js';
import { requestHash } from '../../src/modules/idempotency/idempotency.service.js';
import { Api } from '../support/api.js';
import { describeEachDialect } from '../support/context.js';
import { errorBody, expectErrorShape } from '../support/expect.js';
import { storedFields } from '../support/stored.js';

/**
 * Idempotency-Key while its request is held, fails or races: claims left by an earlier version, a second request
 * under a key in flight, another process holding the key, a 5xx that frees it, answers given outside
 * writeTransaction. The plain replays are in idempotency.test.ts.
 */

/** A promise and its resolve. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Held requests of the test-only routes: `entered` once the work started, the work goes on after `release`. */
let gate = { entered: deferred(), release: deferred() };
const newGate = () => (gate = { entered: deferred(), release: deferred() });

/**
 * Test-only routes with fields.write: a field is created (a visible change), held at the gate before or inside
 * the write transaction, failed with a 500 or a 404 after its change, or written outside writeTransaction.
 */
function testRoutes(app: FastifyInstance, db: () => Db): void {
  const config = { scopes: ['fields.write'] } as const;
  const create =
    (request: Parameters<typeof authOf>[0], name: string) => (ex: Parameters<typeof fieldsService.create>[0]) =>
      fieldsService.create(ex, authOf(request), { name, group: 'USER' });
  app.post('/test/held-before', { config }, async (request, reply) => {
    gate.entered.resolve();
    await gate.release.promise;
    return writeTransaction(db(), request, reply, create(request, 'Held before'));
  });
  app.post('/test/held-inside', { config }, async (request, reply) =>
    writeTransaction(db(), request, reply, async (ex) => {
      const field = await create(request, 'Held inside')(ex);
      gate.entered.resolve();
      await gate.release.promise;
      return field;
    }),
  );
  app.post('/test/fails/:status', { config }, async (request, reply) =>
    writeTransaction(db(), request, reply, async (ex) => {
      await create(request, 'Failed')(ex);
      if ((request.params as { status: string }).status === '500') throw new Error('the work failed');
      throw errors.notFound('Thing t_1', { thing_id: 't_1' });
    }),
  );
  app.post('/test/outside', { config }, async (request) => db().write(create(request, 'Outside')));
}

/**
 * Another process's app over the same database (connections of its own), with the test routes. `lookedUpThere`
 * resolves when one of its requests is past the idempotency look-up (a preHandler: hooks run in the order they were
 * added), which then goes on once `holdAfterLookUp` has resolved.
 */
async function otherProcess(config: Config, holdAfterLookUp: Promise<void> = Promise.resolve()) {
  const otherDb = openDatabase(config.database, { poolSize: 3 });
  const other = await buildApp(config, { db: otherDb, logger: false });
  testRoutes(other, () => otherDb);
  const lookedUp = deferred();
  other.addHook('preHandler', async () => {
    lookedUp.resolve();
    await holdAfterLookUp;
  });
  await other.ready();
  return {
    other,
    lookedUpThere: lookedUp.promise,
    close: async () => {
      await other.close();
      await otherDb.close();
    },
  };
}

let currentDb: Db | undefined;
const db = () => currentDb!;

describeEachDialect(
  'Idempotency-Key on /v1/fields: requests held, failed and raced across processes',
  (t) => {
    beforeAll(() => {
      currentDb = t.ctx.db;
    });

    it('runs at once a request whose key holds the claim row of an earlier version, and refuses another request under it', async () => {
      const api = await t.ctx.as(['fields.write']);
      const body = { name: 'Orphan', group: 'USER' };
      const now = Date.now() * 1000;
      for (const [key, hash] of [
        ['orphan', requestHash('POST', '/v1/fields', body)],
        ['orphan-other', requestHash('POST', '/v1/fields', { ...body, name: 'Other' })],
      ] as const) {
        await t.ctx.db.direct
          .insertInto('idempotency_keys')
          .values({
            account_id: api.accountId,
            client_id: api.clientId,
            idempotency_key: key,
            request_hash: hash,
            state: 'IN_FLIGHT',
            lock_token: 'a-process-of-the-earlier-version',
            locked_until: now + 60_000_000,
            response_status: null,
            response_body: null,
            created_at: now,
            expires_at: now + 86_400_000_000,
          })
          .execute();
      }
      const reused = await api.post('/v1/fields', body, { 'idempotency-key': 'orphan-other' });
      expect([reused.status, reused.body.error_code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
      const taken = await api.post('/v1/fields', body, { 'idempotency-key': 'orphan' });
      expect([taken.status, taken.headers['idempotent-replayed']]).toEqual([200, undefined]);
      const row = await t.ctx.db.direct
        .selectFrom('idempotency_keys')
        .select(['state', 'response_status', 'response_body'])
        .where('client_id', '=', api.clientId)
        .where('idempotency_key', '=', 'orphan')
        .executeTakeFirstOrThrow();
      expect({ ...row, response_body: JSON.parse(row.response_body!) }).toEqual({
        state: 'DONE',
        response_status: 200,
        response_body: taken.body,
      });
      const again = await api.post('/v1/fields', body, { 'idempotency-key': 'orphan' });
      expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([200, 'true', taken.body]);
      expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);
    });

    it('refuses at once (409) a second request under a key while the first runs, however long; 422 for another body', async () => {
      const api = await t.ctx.as(['fields.write']);
      const key = { 'idempotency-key': 'held' };
      newGate();
      const first = api.post('/test/held-before', { n: 1 }, key);
      await gate.entered.promise;
      // The first is held for as long as the test likes: the second is answered meanwhile, not queued behind it.
      for (let i = 0; i < 3; i++) {
        const second = await api.post('/test/held-before', { n: 1 }, key);
        expect(second.status).toBe(409);
        expectErrorShape(second, 'IDEMPOTENCY_KEY_IN_USE');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const other = await api.post('/test/held-before', { n: 2 }, key);
      expect([other.status, other.body.error_code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
      gate.release.resolve();
      const done = await first;
      expect([done.status, done.headers['idempotent-replayed']]).toEqual([200, undefined]);
      const replay = await api.post('/test/held-before', { n: 1 }, key);
      expect([replay.status, replay.headers['idempotent-replayed'], replay.body]).toEqual([200, 'true', done.body]);
      expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);
    });

    it('holds the key in the transaction against another process: refused, never run twice', async () => {
      const api = await t.ctx.as(['fields.write']);
      const { other, lookedUpThere, close } = await otherProcess(t.ctx.config);
      try {
        const elsewhere = new Api(other, api.token, api.accountId, api.clientId);
        const key = { 'idempotency-key': 'held-inside' };
        newGate();
        const first = api.post('/test/held-inside', {}, key);
        await gate.entered.promise;
        const second = elsewhere.post('/test/held-inside', {}, key);
        if (t.dialect === 'postgres') {
          // The advisory lock is tried, not waited for: refused while the first still holds its transaction open.
          const refused = await second;
          expect([refused.status, refused.body.error_code]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
          gate.release.resolve();
        } else {
          // One writer at a time: the other process, past its look-up (nothing stored yet), waits for the write
          // lock, then finds the answer stored.
          await lookedUpThere;
          gate.release.resolve();
          const refused = await second;
          expect([refused.status, refused.body.error_code]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
        }
        const done = await first;
        expect([done.status, done.headers['idempotent-replayed']]).toEqual([200, undefined]);
        const replay = await elsewhere.post('/test/held-inside', {}, key);
        expect([replay.status, replay.headers['idempotent-replayed'], replay.body]).toEqual([200, 'true', done.body]);
        expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);
      } finally {
        await close();
      }
    });

    it("answers 422 to a request whose key took another request's answer after its look-up, and keeps that answer", async () => {
      const api = await t.ctx.as(['fields.write']);
      // The other process's request is held after its look-up (nothing stored then) until the first has answered.
      const firstAnswered = deferred();
      const { other, lookedUpThere, close } = await otherProcess(t.ctx.config, firstAnswered.promise);
      try {
        const elsewhere = new Api(other, api.token, api.accountId, api.clientId);
        const key = { 'idempotency-key': 'answered-meanwhile' };
        const second = elsewhere.post('/test/held-before', { another: 'request' }, key);
        // Answered before it got there (refused by a hook): said at once, not waited for.
        await Promise.race([
          lookedUpThere,
          second.then((r) => {
            throw new Error(`answered before its look-up was held: ${r.status} ${r.text}`);
          }),
        ]);
        newGate();
        gate.release.resolve();
        const first = await api.post('/test/held-before', {}, key);
        expect([first.status, first.headers['idempotent-replayed']]).toEqual([200, undefined]);
        firstAnswered.resolve();
        const refused = await second;
        expect(refused.status, refused.text).toBe(422);
        expect(refused.body).toEqual(errorBody('IDEMPOTENCY_KEY_REUSED'));
        // Nothing of the refused request was kept, and the key still answers the first request.
        expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);
        const replay = await api.post('/test/held-before', {}, key);
        expect([replay.status, replay.headers['idempotent-replayed'], replay.body]).toEqual([200, 'true', first.body]);
      } finally {
        firstAnswered.resolve();
        await close();
      }
    });

    it('frees the key after a 5xx and stores a business error with its work undone', async () => {
      const api = await t.ctx.as(['fields.write']);
      const key = { 'idempotency-key': 'fails' };
      for (let i = 0; i < 2; i++) {
        // Run again each time: nothing was stored.
        const failed = await api.post('/test/fails/500', {}, key);
        expect([failed.status, failed.body.error_code, failed.headers['idempotent-replayed']]).toEqual([
          500,
          'INTERNAL_ERROR',
          undefined,
        ]);
      }
      expect(
        await t.ctx.db.direct
          .selectFrom('idempotency_keys')
          .select('state')
          .where('client_id', '=', api.clientId)
          .execute(),
      ).toEqual([]);
      // The key is free: another request may take it.
      const missing = await api.post('/test/fails/404', {}, key);
      expect(missing.body).toEqual(errorBody('NOT_FOUND', { details: { thing_id: 't_1' } }));
      const replayed = await api.post('/test/fails/404', {}, key);
      expect([replayed.status, replayed.headers['idempotent-replayed'], replayed.body]).toEqual([
        404,
        'true',
        missing.body,
      ]);
      expect(await storedFields(t.ctx, api.accountId)).toEqual([]);
    });

    it('replays an answer given outside writeTransaction, stored after it', async () => {
      const api = await t.ctx.as(['fields.write']);
      const key = { 'idempotency-key': 'outside' };
      const first = await api.post('/test/outside', {}, key);
      expect([first.status, first.headers['idempotent-replayed']]).toEqual([200, undefined]);
      const again = await api.post('/test/outside', {}, key);
      expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([200, 'true', first.body]);
      expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);
    });
  },
  {},
  { beforeReady: (app) => testRoutes(app, db) },
);
