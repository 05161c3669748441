import fs from 'node:fs';
import pg from 'pg';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { PG_URL } from '../support/dialects.js';

/** Takes the test database away for real: PostgreSQL drops it, SQLite finds garbage in its file. */
async function destroyDatabase(url: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    // In place (same inodes, as the open connection sees them); the WAL index too, or SQLite keeps
    // answering from its page cache.
    for (const suffix of ['', '-wal', '-shm']) fs.writeFileSync(`${file}${suffix}`, Buffer.alloc(64 * 1024, 0x5a));
    return;
  }
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
    await admin.query(`drop database ${name} with (force)`);
  } finally {
    await admin.end();
  }
}

describeEachDialect('database unreachable', (t) => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, and /readyz 503, /healthz still 200', async () => {
    const api = await t.ctx.as(['fields.write']);
    await api.newField({ name: 'before', group: 'USER' });
    expect((await t.ctx.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });

    await destroyDatabase(t.ctx.database.url);

    const expected = errorBody('SERVICE_UNAVAILABLE', { message: 'The database is unavailable. Retry later.' });
    for (const send of [
      () => api.get('/v1/fields'),
      () => api.create('/v1/fields', { name: 'after', group: 'USER' }),
    ]) {
      const res = await send();
      expect(res.status).toBe(503);
      expect(res.body).toEqual(expected);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers['x-request-id']).toBe(res.body.request_id);
    }
    const ready = await t.ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual(expected);
    expect((await t.ctx.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const token = await t.ctx.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      payload: { grant_type: 'client_credentials', client_id: 'cli_x', client_secret: 'secret' },
    });
    expect([token.statusCode, token.json(), token.headers['retry-after']]).toEqual([
      503,
      { error: 'temporarily_unavailable', error_description: 'The database is unavailable. Retry later.' },
      '1',
    ]);
  });
});
