import { expect, it } from 'vitest';
import { ADMIN, reviewUrl } from '../support/accounting.js';
import { Browser, newUser, PASSWORD, SESSION, signIn, storedSessions } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { codingUrl, historyUrl, SEARCH } from '../support/review.js';

/** An account with a record under review, its admin API client, and a signed-in user of the given role. */
async function account(ctx: TestContext, role: 'ACCOUNT_ADMIN' | 'BOOKKEEPER' | 'READ_ONLY') {
  const api = await ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read']);
  const record = await api.newRecord({ review_status: 'REVIEW' });
  const user = await newUser(ctx.db, role, api.accountId);
  return { api, record, user, browser: await Browser.signIn(ctx.app, user) };
}
describeEachDialect('console: what a session may do', (t) => {
  it('calls the API with the role of the user; writes need the CSRF token and are recorded as the user', async () => {
    const { record, browser, user } = await account(t.ctx, 'BOOKKEEPER');
    const list = await browser.get(SEARCH, { review_status: 'REVIEW' });
    expect(list.status).toBe(200);
    expect(list.body.items.map((r: any) => r.id)).toEqual([record.id]);

    browser.csrf = false;
    const withoutToken = await browser.post('/internal/v1/accounting/records/review-status', {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id: record.id }],
    });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body).toEqual(errorBody('CSRF_TOKEN_INVALID'));
    const wrongToken = await browser.post(
      '/internal/v1/accounting/records/review-status',
      { review_status: 'READY_FOR_EXPORT', records: [{ id: record.id }] },
      { 'x-csrf-token': 'not-the-token' },
    );
    expect(wrongToken.status).toBe(403);
    expect(wrongToken.body).toEqual(errorBody('CSRF_TOKEN_INVALID'));
    expect((await browser.get(historyUrl(record.id))).body.items.map((e: any) => e.version)).toEqual([1]);

    browser.csrf = true;
    const moved = await browser.post('/internal/v1/accounting/records/review-status', {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id: record.id, version: 1 }],
    });
    expect(moved.status, moved.text).toBe(200);
    const history = (await browser.get(historyUrl(record.id))).body.items;
    expect(history.at(-1)).toMatchObject({ version: 2, type: 'MOVED', actor: { type: 'user', id: user.user_id } });
  });

  it('answers 403 for what the role does not allow, and changes nothing', async () => {
    const ro = await account(t.ctx, 'READ_ONLY');
    const move = await ro.browser.post(reviewUrl(ro.record.id), { review_status: 'READY_FOR_EXPORT' });
    expect(move.status).toBe(403);
    expect(move.body).toEqual(
      errorBody('FORBIDDEN', {
        message: 'Your role (READ_ONLY) does not allow this operation.',
        details: { role: 'READ_ONLY', required_scopes: ['accounting.record.admin'] },
      }),
    );
    const code = await ro.browser.post(codingUrl(ro.record.id), { version: 1, lines: [] });
    expect(code.status).toBe(403);
    expect((await ro.api.get(`/v3/accounting/records/${ro.record.id}`)).body.version).toBe(1);

    const bk = await account(t.ctx, 'BOOKKEEPER');
    for (const [method, url, body] of [
      ['POST', '/v1/fields', { name: 'Class', group: 'ACCOUNTING' }],
      ['PUT', '/internal/v1/accounting/required-coding', { field_ids: [] }],
      ['POST', '/v3/accounting/records/export-results', { results: [] }],
    ] as const) {
      const res = await bk.browser.request(method, url, { body, headers: { 'idempotency-key': crypto.randomUUID() } });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error_code).toBe('FORBIDDEN');
    }
    expect((await bk.api.get('/v1/fields')).body.items).toEqual([]);

    const admin = await account(t.ctx, 'ACCOUNT_ADMIN');
    const field = await admin.browser.create('/v1/fields', { name: 'Class', group: 'ACCOUNTING' });
    expect(field.status, field.text).toBe(200);
  });

  it("sees and changes nothing of another account's", async () => {
    const mine = await account(t.ctx, 'ACCOUNT_ADMIN');
    const theirs = await account(t.ctx, 'ACCOUNT_ADMIN');
    const id = theirs.record.id;
    expect((await mine.browser.get(`/v3/accounting/records/${id}`)).status).toBe(404);
    expect((await mine.browser.get(historyUrl(id))).status).toBe(404);
    expect((await mine.browser.get(SEARCH)).body.items.map((r: any) => r.id)).toEqual([mine.record.id]);
    const move = await mine.browser.post(reviewUrl(id), { review_status: 'READY_FOR_EXPORT' });
    expect(move.status).toBe(404);
    const bulk = await mine.browser.post('/internal/v1/accounting/records/review-status', {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id }],
    });
    expect(bulk.status).toBe(404);
    expect((await theirs.api.get(`/v3/accounting/records/${id}`)).body).toMatchObject({
      review_status: 'REVIEW',
      version: 1,
    });
    // The session of account A with the CSRF token of account B's session is refused.
    mine.browser.csrfToken = theirs.browser.csrfToken;
    const crossed = await mine.browser.post(reviewUrl(mine.record.id), { review_status: 'READY_FOR_EXPORT' });
    expect(crossed.status).toBe(403);
    expect(crossed.body.error_code).toBe('CSRF_TOKEN_INVALID');
  });

  it('ends the session on the server at sign-out: the cookie is useless afterwards', async () => {
    const { browser, user } = await account(t.ctx, 'BOOKKEEPER');
    browser.csrf = false;
    const noToken = await browser.delete(SESSION);
    expect(noToken.status).toBe(403);
    expect(await storedSessions(t.ctx, user.user_id)).toHaveLength(1);
    browser.csrf = true;
    const out = await browser.delete(SESSION);
    expect(out.status).toBe(200);
    expect(out.body).toEqual({});
    expect(await storedSessions(t.ctx, user.user_id)).toEqual([]);
    for (const url of [SESSION, SEARCH]) {
      const res = await browser.get(url);
      expect(res.status).toBe(401);
      expect(res.body.error_code).toBe('UNAUTHORIZED');
    }
  });

  it('ends a session after its idle time, after its absolute lifetime, and when the user is disabled', async () => {
    for (const change of [
      { last_seen_at: Date.now() * 1000 - 31 * 60_000_000 },
      { expires_at: Date.now() * 1000 - 1 },
    ]) {
      const { browser, user } = await account(t.ctx, 'READ_ONLY');
      expect((await browser.get(SEARCH)).status).toBe(200);
      await t.ctx.db.direct.updateTable('user_sessions').set(change).where('user_id', '=', user.user_id).execute();
      expect((await browser.get(SEARCH)).status).toBe(401);
      expect(await storedSessions(t.ctx, user.user_id)).toEqual([]);
    }
    const { browser, user } = await account(t.ctx, 'ACCOUNT_ADMIN');
    const { usersService } = await import('../../src/modules/users/users.service.js');
    await usersService.disable(t.ctx.db, user.user_id);
    expect((await browser.get(SEARCH)).status).toBe(401);
    expect((await signIn(t.ctx, user.email, PASSWORD)).statusCode).toBe(401);
  });

  it('the maintenance sweep deletes ended sessions and expired links, and keeps the others', async () => {
    const { usersService } = await import('../../src/modules/users/users.service.js');
    const idle = await account(t.ctx, 'READ_ONLY');
    const live = await account(t.ctx, 'READ_ONLY');
    const now = Date.now() * 1000;
    await t.ctx.db.direct
      .updateTable('user_sessions')
      .set({ last_seen_at: now - 31 * 60_000_000 })
      .where('user_id', '=', idle.user.user_id)
      .execute();
    const invited = await usersService.create(t.ctx.db, {
      accountId: idle.user.account_id,
      email: `late.${Date.now()}@example.com`,
      role: 'READ_ONLY',
    });
    const waiting = await usersService.create(t.ctx.db, {
      accountId: idle.user.account_id,
      email: `waiting.${Date.now()}@example.com`,
      role: 'READ_ONLY',
    });
    const link = invited;
    await t.ctx.db.direct
      .updateTable('user_password_links')
      .set({ expires_at: now - 1 })
      .where('user_id', '=', invited.user.user_id)
      .execute();
    await usersService.deleteEnded(t.ctx.db, now, 30 * 60_000_000);
    expect(await storedSessions(t.ctx, idle.user.user_id)).toEqual([]);
    expect(await storedSessions(t.ctx, live.user.user_id)).toHaveLength(1);
    const links = (userId: string) =>
      t.ctx.db.direct.selectFrom('user_password_links').selectAll().where('user_id', '=', userId).execute();
    expect(await links(invited.user.user_id)).toEqual([]);
    expect(await links(waiting.user.user_id)).toHaveLength(1);
    const res = await t.ctx.app.inject({
      method: 'POST',
      url: '/auth/password',
      payload: { token: link.token, password: 'too late for this link' },
    });
    expect(JSON.parse(res.body).error_code).toBe('INVALID_PASSWORD_LINK');
    expect((await live.browser.get(SEARCH)).status).toBe(200);
  });

  it('ends the sessions of a user whose password was reset, even one saved after the reset', async () => {
    const { browser, user } = await account(t.ctx, 'BOOKKEEPER');
    expect((await browser.get(SEARCH)).status).toBe(200);
    // As a sign-in racing a reset would leave it: the session row is there, the password is gone.
    await t.ctx.db.direct
      .updateTable('users')
      .set({ password_hash: null })
      .where('user_id', '=', user.user_id)
      .execute();
    expect((await browser.get(SEARCH)).status).toBe(401);
    expect(await storedSessions(t.ctx, user.user_id)).toEqual([]);
  });

  it('takes a role change on the next request', async () => {
    const { browser, user, record } = await account(t.ctx, 'ACCOUNT_ADMIN');
    await t.ctx.db.direct.updateTable('users').set({ role: 'READ_ONLY' }).where('user_id', '=', user.user_id).execute();
    const res = await browser.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
    expect(res.status).toBe(403);
    expect(res.body.details.role).toBe('READ_ONLY');
  });
});
