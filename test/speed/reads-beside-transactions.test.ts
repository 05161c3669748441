import Database from 'better-sqlite3';
import { SqliteDriver, sql } from 'kysely';
import { expect, it, onTestFinished, vi } from 'vitest';
import { nowMicros } from '../../src/lib/clock.js';
import { describeEachDialect } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { valuesUrl } from '../support/field-values.js';
import { until } from '../support/wait.js';

/**
 * A request's reads never see another request's uncommitted writes, the grant cache's included. On SQLite the
 * service's one connection is shared by every request of the process: a read waits for a transaction that holds it,
 * and the grant cache's change mark (src/speed/sqlite-connection.ts) is read only while none does. Each case opens a
 * transaction that writes, asks while it is open, then rolls it back: a read that ran inside the transaction would
 * answer what was never committed.
 */
describeEachDialect('reads beside an open transaction', (t) => {
  /**
   * Runs `write` in a transaction, sends `ask` while it is open, and rolls the transaction back once the request
   * has gone as far as it can: on PostgreSQL its reads run on other connections, so it is answered meanwhile; on
   * SQLite it asks for the one connection, which the transaction holds, and waits (Kysely's driver hands the
   * connection out one at a time: the request's turn is seen as its call to acquireConnection).
   */
  async function askDuringRolledBackWrite<T>(write: (trx: any) => Promise<unknown>, ask: () => Promise<T>) {
    const acquired = vi.spyOn(SqliteDriver.prototype, 'acquireConnection');
    onTestFinished(() => acquired.mockRestore());
    let answer: Promise<T> | undefined;
    await t.ctx.db
      .write(async (trx) => {
        await write(trx);
        const before = acquired.mock.calls.length;
        let answered = false;
        answer = ask().finally(() => (answered = true));
        // (Answered without the connection on SQLite, it would have read inside: the assertions say so.)
        const waiting = () => answered || acquired.mock.calls.length > before;
        await (t.dialect === 'postgres' ? answer : until('the request to wait for the connection', waiting));
        throw new Error('rolled back on purpose');
      })
      .catch((error: unknown) => {
        if (!(error instanceof Error) || error.message !== 'rolled back on purpose') throw error;
      });
    return answer!;
  }

  it('a value deleted by an uncommitted transaction is still answered, as committed', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const [value] = await api.newValues(fieldId, [{ value: 'Sales', remote_id: 'R1' }]);
    const got = await askDuringRolledBackWrite(
      (trx) => trx.deleteFrom('field_values').where('svc_id', '=', value.svc_id).execute(),
      () => api.get(`${valuesUrl(fieldId)}/${value.svc_id}`),
    );
    expect(got.status).toBe(200);
    expect(got.body).toEqual(value);
  });

  it("a client revoked by an uncommitted transaction keeps its token's access; once committed, it does not", async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const url = `/v1/fields/${fieldId}`;
    expect((await api.get(url)).status).toBe(200); // the grant is now known (SQLite keeps it while nothing changes)
    const revoke = (ex: any) =>
      ex
        .updateTable('oauth_clients')
        .set({ revoked_at: sql`${nowMicros()}` })
        .where('client_id', '=', api.clientId)
        .execute();
    const during = await askDuringRolledBackWrite(revoke, () => api.get(url));
    expect(during.status).toBe(200);

    await revoke(t.ctx.db.direct);
    const after = await api.get(url);
    expect(after.status).toBe(401);
    expect(after.body).toEqual(errorBody('UNAUTHORIZED', { message: 'The access token is invalid or expired.' }));
  });
});

describeEachDialect(
  "SQLite's change mark",
  (t) => {
    it('moves with every write of this process and every commit of another connection, and is none inside a transaction', async () => {
      const db = t.ctx.db;
      const mark = () => db.direct.changeMark!();
      await sql`create table guard_marks (id integer primary key)`.execute(db.direct);
      const first = mark();
      expect(first).toEqual(expect.any(String));
      expect(mark()).toBe(first); // reading changes nothing

      await sql`insert into guard_marks (id) values (1)`.execute(db.direct);
      const afterOwn = mark();
      expect(afterOwn).not.toBe(first);

      const other = new Database(t.ctx.database.url.replace(/^sqlite:/, ''));
      try {
        other.prepare('insert into guard_marks (id) values (2)').run();
      } finally {
        other.close();
      }
      const afterOther = mark();
      expect(afterOther).not.toBe(afterOwn);

      // While a transaction of this process holds the connection, another request finds no mark (and reads the grant).
      const inside = await db.write(async (ex) => {
        await sql`insert into guard_marks (id) values (3)`.execute(ex);
        return mark();
      });
      expect(inside).toBeUndefined();
      expect(mark()).not.toBe(afterOther);
    });
  },
  {},
  { only: 'sqlite' },
);
