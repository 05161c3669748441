import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { Browser, newUser } from './support/console.js';
import { describeEachDialect } from './support/context.js';
import { BULK, historyUrl } from './support/review.js';

describeEachDialect('review: names in a record’s history', (t) => {
  it('names each user who acted (the email they sign in with); API clients and the system keep their ids only', async () => {
    const api = await t.ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read']);
    const record = await api.newRecord({ review_status: 'PREPARE' });
    const ann = await newUser(t.ctx.db, 'BOOKKEEPER', api.accountId);
    const bob = await newUser(t.ctx.db, 'ACCOUNT_ADMIN', api.accountId);
    const asAnn = await Browser.signIn(t.ctx.app, ann);
    const asBob = await Browser.signIn(t.ctx.app, bob);
    const submitted = await asAnn.post(BULK, { review_status: 'REVIEW', records: [{ id: record.id, version: 1 }] });
    expect(submitted.status, submitted.text).toBe(200);
    const sentBack = await asBob.post(BULK, { review_status: 'PREPARE', records: [{ id: record.id, version: 2 }] });
    expect(sentBack.status, sentBack.text).toBe(200);
    const again = await asAnn.post(BULK, { review_status: 'REVIEW', records: [{ id: record.id, version: 3 }] });
    expect(again.status, again.text).toBe(200);

    // The same answer to the API client and to a signed-in user.
    for (const reader of [api, asBob]) {
      const history = await reader.get(historyUrl(record.id));
      expect(history.status, history.text).toBe(200);
      expect(history.body.items.map((e: any) => [e.type, e.version, e.actor])).toEqual([
        ['INGESTED', 1, { type: 'client', id: api.clientId }],
        ['MOVED', 2, { type: 'user', id: ann.user_id, name: ann.email }],
        ['MOVED', 3, { type: 'user', id: bob.user_id, name: bob.email }],
        ['MOVED', 4, { type: 'user', id: ann.user_id, name: ann.email }],
      ]);
    }
    // What is stored is the actor's id, not a name: a name read at each answer is the user's name now.
    const stored = await t.ctx.db.direct
      .selectFrom('accounting_record_events')
      .select(['actor_type', 'actor_id'])
      .where('record_id', '=', record.id)
      .orderBy('version')
      .execute();
    expect(stored).toEqual([
      { actor_type: 'client', actor_id: api.clientId },
      { actor_type: 'user', actor_id: ann.user_id },
      { actor_type: 'user', actor_id: bob.user_id },
      { actor_type: 'user', actor_id: ann.user_id },
    ]);
  });

  it('names no one for a user id that is not a user of the account', async () => {
    const api = await t.ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read']);
    const record = await api.newRecord({ review_status: 'PREPARE' });
    // Another account's user with events of this record (as a seeded or imported history could hold).
    const stranger = await newUser(t.ctx.db, 'BOOKKEEPER');
    await t.ctx.db.direct
      .updateTable('accounting_record_events')
      .set({ actor_type: 'user', actor_id: stranger.user_id })
      .where('record_id', '=', record.id)
      .execute();
    const history = await api.get(historyUrl(record.id));
    expect(history.status, history.text).toBe(200);
    expect(history.body.items.map((e: any) => e.actor)).toEqual([{ type: 'user', id: stranger.user_id }]);
  });
});
