import Database from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { expect, it, vi } from 'vitest';
import type { DialectName } from '../../src/db/database.js';
import { describeEachDialect } from '../support/context.js';
import { storedTokens } from '../support/stored.js';
import { until } from '../support/wait.js';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/**
 * Tokens asked for at the same time are committed together (src/speed/group-commit.ts): each answer still
 * stands for a committed row, and a failed commit fails every request of its group and stores none of them.
 */
describeEachDialect(
  'POST /oauth2/token, group commit',
  (t) => {
    const ask = (id: string, secret: string) =>
      t.ctx.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        payload: 'grant_type=client_credentials',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(id, secret) },
      });

    it('answers 60 requests at once with 60 distinct tokens, each stored and usable; a wrong secret among them is refused alone', async () => {
      const c = await t.ctx.newClient(['fields.read']);
      const answers = await Promise.all(
        Array.from({ length: 61 }, (_, i) => ask(c.client_id, i === 30 ? `${c.client_secret}x` : c.client_secret)),
      );
      expect(answers.map((res) => res.statusCode)).toEqual(
        Array.from({ length: 61 }, (_, i) => (i === 30 ? 401 : 200)),
      );
      expect(answers[30]!.json()).toEqual({
        error: 'invalid_client',
        error_description: 'Client authentication failed.',
      });
      const tokens = answers.filter((_, i) => i !== 30).map((res) => res.json().access_token as string);
      expect(new Set(tokens).size).toBe(60);
      expect(await storedTokens(t.ctx, c.client_id)).toHaveLength(60);
      const uses = await Promise.all(
        tokens.map((token) =>
          t.ctx.app.inject({ method: 'GET', url: '/v1/fields', headers: { authorization: `Bearer ${token}` } }),
        ),
      );
      expect(uses.map((res) => res.statusCode)).toEqual(Array.from({ length: 60 }, () => 200));
    });

    it('fails only the requests whose own row the database refuses; the others of their group are answered and stored', async () => {
      const refused = await t.ctx.newClient(['fields.read']);
      const other = await t.ctx.newClient(['fields.read']);
      // The fault: the database refuses new tokens of one client (a trigger that raises), in the group's transaction.
      const db = t.ctx.db.direct;
      if (t.ctx.dialect === 'sqlite') {
        await sql`create trigger refuse_tokens before insert on access_tokens when new.client_id = ${sql.lit(refused.client_id)} begin select raise(abort, 'injected fault'); end`.execute(
          db,
        );
      } else {
        await sql`create function refuse_tokens() returns trigger language plpgsql as $$ begin if new.client_id = ${sql.lit(refused.client_id)} then raise exception 'injected fault'; end if; return new; end $$`.execute(
          db,
        );
        await sql`create trigger refuse_tokens before insert on access_tokens for each row execute function refuse_tokens()`.execute(
          db,
        );
      }
      // Asked for at once: one group, whose first transaction fails for the refused client's rows.
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          i % 2 === 0 ? ask(refused.client_id, refused.client_secret) : ask(other.client_id, other.client_secret),
        ),
      );
      answers.forEach((res, i) => {
        if (i % 2 === 0) {
          expect(res.statusCode).toBe(500);
          expect(res.json()).toEqual({ error: 'server_error', error_description: 'An unexpected error occurred.' });
        } else {
          expect(res.statusCode).toBe(200);
        }
      });
      expect(await storedTokens(t.ctx, refused.client_id)).toHaveLength(0);
      const stored = await storedTokens(t.ctx, other.client_id);
      expect(stored).toHaveLength(5);

      await sql`drop trigger refuse_tokens${sql.raw(t.ctx.dialect === 'sqlite' ? '' : ' on access_tokens')}`.execute(
        db,
      );
      const next = await Promise.all(Array.from({ length: 3 }, () => ask(refused.client_id, refused.client_secret)));
      expect(next.map((res) => res.statusCode)).toEqual([200, 200, 200]);
      expect(await storedTokens(t.ctx, refused.client_id)).toHaveLength(3);
    });
  },
  { TOKEN_RATE_LIMIT_MAX: '1000' },
);

/** Holds the access_tokens table against writes from another connection (as another process would), until released. */
async function holdTokenWrites(dialect: DialectName, url: string): Promise<() => Promise<void>> {
  if (dialect === 'sqlite') {
    const other = new Database(url.replace(/^sqlite:/, ''));
    other.exec('begin immediate');
    return async () => {
      other.exec('rollback');
      other.close();
    };
  }
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  await other.query('begin');
  await other.query('lock table access_tokens in exclusive mode');
  return async () => {
    await other.query('rollback');
    await other.end();
  };
}

describeEachDialect(
  'POST /oauth2/token, a group whose commit stalls',
  (t) => {
    it('answers the stalled group 503 once the deadline passes, then serves the next group', async () => {
      const c = await t.ctx.newClient(['fields.read']);
      const ask = () =>
        t.ctx.app.inject({
          method: 'POST',
          url: '/oauth2/token',
          payload: 'grant_type=client_credentials',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: basic(c.client_id, c.client_secret),
          },
        });
      const release = await holdTokenWrites(t.ctx.dialect, t.ctx.database.url);
      let stalled;
      try {
        // Without the deadline (REQUEST_TIMEOUT_MS) these would wait for the lock: on PostgreSQL, for ever.
        stalled = await Promise.all(Array.from({ length: 5 }, ask));
      } finally {
        await release();
      }
      for (const res of stalled) {
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({
          error: 'temporarily_unavailable',
          error_description: 'The database is unavailable. Retry later.',
        });
        expect(res.headers['retry-after']).toBe('1');
      }
      // The stalled group commits once the lock is gone: its 5 tokens are stored, handed to nobody.
      await until('the stalled group to commit', async () => (await storedTokens(t.ctx, c.client_id)).length === 5);
      // The next group is served. (Its deadline is a timer of this process, held here: a slow commit on a loaded
      // machine is not what this test is about.)
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      let next;
      try {
        next = await Promise.all(Array.from({ length: 3 }, ask));
      } finally {
        vi.useRealTimers();
      }
      expect(next.map((res) => res.statusCode)).toEqual([200, 200, 200]);
      for (const res of next) {
        const use = await t.ctx.app.inject({
          method: 'GET',
          url: '/v1/fields',
          headers: { authorization: `Bearer ${res.json().access_token}` },
        });
        expect(use.statusCode).toBe(200);
      }
      expect(await storedTokens(t.ctx, c.client_id)).toHaveLength(8);
    });
  },
  { REQUEST_TIMEOUT_MS: '1000', TOKEN_RATE_LIMIT_MAX: '1000' },
);
