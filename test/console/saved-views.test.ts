import { expect, it } from 'vitest';
import { ADMIN } from '../support/accounting.js';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect, newAccountId, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';

const VIEWS = '/internal/v1/accounting/saved-views';
const viewUrl = (id: string) => `${VIEWS}/${id}`;
const UNCODED = { review_status: 'REVIEW', uncoded: true, sort: '-amount' };

/** The stored views of these accounts, in a comparable form. */
const stored = async (ctx: TestContext, ...accounts: string[]) =>
  (
    await ctx.db.direct
      .selectFrom('saved_views')
      .selectAll()
      .where('account_id', 'in', accounts)
      .orderBy('id')
      .execute()
  ).map((r) => ({
    account_id: r.account_id,
    user_id: r.user_id,
    name: r.name,
    filters: JSON.parse(r.filters_json),
  }));

async function signedIn(ctx: TestContext, role: 'BOOKKEEPER' | 'READ_ONLY' | 'ACCOUNT_ADMIN', accountId?: string) {
  const user = await newUser(ctx.db, role, accountId ?? newAccountId());
  return { user, browser: await Browser.signIn(ctx.app, user) };
}

describeEachDialect('console: saved views of the review queue', (t) => {
  it('saves, lists by name, renames, changes and deletes the signed-in user’s views', async () => {
    const { user, browser } = await signedIn(t.ctx, 'BOOKKEEPER');
    expect((await browser.get(VIEWS)).body).toEqual({ items: [] });

    const created = await browser.post(VIEWS, { name: '  Uncoded, biggest first ', filters: UNCODED });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^svw_[0-9a-z]{26}$/),
      name: 'Uncoded, biggest first',
      filters: UNCODED,
      shared: false,
      owner: { user_id: user.user_id, name: user.email },
      mine: true,
      created_at: expect.stringMatching(ISO_MICROS),
      updated_at: created.body.created_at,
    });
    const filters = {
      q: 'uber 12.50',
      'amount[gte]': 10,
      'amount[lte]': 99.5,
      'posted_at[gte]': '2026-01-01T00:00:00Z',
    };
    const other = await browser.post(VIEWS, { name: 'Another', filters });
    expect(other.status, other.text).toBe(200);
    expect((await browser.get(VIEWS)).body).toEqual({ items: [other.body, created.body] });

    const renamed = await browser.patch(viewUrl(created.body.id), { name: 'Big uncoded' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toEqual({
      ...created.body,
      name: 'Big uncoded',
      updated_at: expect.stringMatching(ISO_MICROS),
    });
    const changed = await browser.patch(viewUrl(created.body.id), { filters: { receipt: 'missing' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.filters).toEqual({ receipt: 'missing' });
    expect(changed.body.name).toBe('Big uncoded');
    // Renaming a view to its own name in another case is no clash.
    expect((await browser.patch(viewUrl(created.body.id), { name: 'BIG uncoded' })).status).toBe(200);

    expect(await stored(t.ctx, user.account_id)).toEqual([
      { account_id: user.account_id, user_id: user.user_id, name: 'BIG uncoded', filters: { receipt: 'missing' } },
      { account_id: user.account_id, user_id: user.user_id, name: 'Another', filters },
    ]);

    const deleted = await browser.delete(viewUrl(created.body.id));
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await browser.get(VIEWS)).body).toEqual({ items: [other.body] });
    const again = await browser.delete(viewUrl(created.body.id));
    expect(again.status).toBe(404);
    expect(again.body).toEqual(errorBody('NOT_FOUND', { details: { saved_view_id: created.body.id } }));
  });

  it('refuses a name the user has already (409 naming it), whatever its case; a colleague may use it', async () => {
    const { user, browser } = await signedIn(t.ctx, 'BOOKKEEPER');
    const first = await browser.post(VIEWS, { name: 'Mine', filters: {} });
    const second = await browser.post(VIEWS, { name: 'Other', filters: {} });
    const clash = await browser.post(VIEWS, { name: ' mINE ', filters: UNCODED });
    expect(clash.status, clash.text).toBe(409);
    expect(clash.body).toEqual(errorBody('CONFLICT', { details: { name: 'mINE', saved_view_id: first.body.id } }));
    const renamed = await browser.patch(viewUrl(second.body.id), { name: 'MINE' });
    expect(renamed.status).toBe(409);
    expect(renamed.body).toEqual(errorBody('CONFLICT', { details: { name: 'MINE', saved_view_id: first.body.id } }));

    const colleague = await signedIn(t.ctx, 'BOOKKEEPER', user.account_id);
    expect((await colleague.browser.post(VIEWS, { name: 'Mine', filters: UNCODED })).status).toBe(200);
    expect((await stored(t.ctx, user.account_id)).map((v) => [v.user_id, v.name])).toEqual(
      expect.arrayContaining([
        [user.user_id, 'Mine'],
        [user.user_id, 'Other'],
        [colleague.user.user_id, 'Mine'],
      ]),
    );
    expect(await stored(t.ctx, user.account_id)).toHaveLength(3);
  });

  it('checks the filters as the search query: a bad member is refused 400 naming it, nothing saved', async () => {
    const { user, browser } = await signedIn(t.ctx, 'BOOKKEEPER');
    const cases: [unknown, string[]][] = [
      [{ review_status: 'DONE' }, ['/filters/review_status']],
      [{ sort: 'vendor' }, ['/filters/sort']],
      [{ 'amount[gte]': 'ten' }, ['/filters/amount[gte]']],
      [{ 'posted_at[gte]': 'yesterday' }, ['/filters/posted_at[gte]']],
      [{ uncoded: 'yes', cursor: 'abc' }, ['/filters/cursor', '/filters/uncoded']],
      [{ 'amount[gte]': 10, 'amount[lte]': 5 }, ['/filters/amount[lte]']],
    ];
    for (const [filters, paths] of cases) {
      const res = await browser.post(VIEWS, { name: 'Bad', filters });
      expect(res.status, JSON.stringify(filters)).toBe(400);
      expect(res.body.error_code).toBe('INVALID_REQUEST');
      expect([...new Set(res.body.details.errors.map((e: { path: string }) => e.path))].sort()).toEqual(paths);
    }
    for (const body of [{ name: '', filters: {} }, { name: '   ', filters: {} }, { filters: {} }, { name: 'x' }]) {
      const res = await browser.post(VIEWS, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error_code).toBe('INVALID_REQUEST');
    }
    expect(await stored(t.ctx, user.account_id)).toEqual([]);

    const view = await browser.post(VIEWS, { name: 'Good', filters: UNCODED });
    const bad = await browser.patch(viewUrl(view.body.id), { filters: { source_type: 'CASH' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors.map((e: { path: string }) => e.path)).toEqual(['/filters/source_type']);
    expect((await browser.patch(viewUrl(view.body.id), {})).status).toBe(400);
    expect((await stored(t.ctx, user.account_id)).map((v) => v.filters)).toEqual([UNCODED]);
  });

  it('never lists, changes or deletes another user’s view, nor another account’s (404, unchanged)', async () => {
    const mine = await signedIn(t.ctx, 'ACCOUNT_ADMIN');
    const view = await mine.browser.post(VIEWS, { name: 'Private', filters: UNCODED });
    expect(view.status).toBe(200);
    const colleague = await signedIn(t.ctx, 'ACCOUNT_ADMIN', mine.user.account_id);
    const stranger = await signedIn(t.ctx, 'ACCOUNT_ADMIN');
    for (const other of [colleague, stranger]) {
      expect((await other.browser.get(VIEWS)).body).toEqual({ items: [] });
      for (const res of [
        await other.browser.patch(viewUrl(view.body.id), { name: 'Taken over' }),
        await other.browser.patch(viewUrl(view.body.id), { filters: {} }),
        await other.browser.delete(viewUrl(view.body.id)),
      ]) {
        expect(res.status, res.text).toBe(404);
        expect(res.body).toEqual(errorBody('NOT_FOUND', { details: { saved_view_id: view.body.id } }));
      }
    }
    expect((await mine.browser.get(VIEWS)).body).toEqual({ items: [view.body] });
    expect(await stored(t.ctx, mine.user.account_id, stranger.user.account_id)).toEqual([
      { account_id: mine.user.account_id, user_id: mine.user.user_id, name: 'Private', filters: UNCODED },
    ]);
  });

  it('is for console users who read records: writes need the CSRF token; API clients are refused', async () => {
    const { user, browser } = await signedIn(t.ctx, 'READ_ONLY');
    const kept = await browser.post(VIEWS, { name: 'Read-only too', filters: {} });
    expect(kept.status, kept.text).toBe(200);

    browser.csrf = false;
    for (const res of [
      await browser.post(VIEWS, { name: 'No token', filters: {} }),
      await browser.patch(viewUrl(kept.body.id), { name: 'No token' }),
      await browser.delete(viewUrl(kept.body.id)),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(errorBody('CSRF_TOKEN_INVALID'));
    }

    const api = await t.ctx.as([...ADMIN, 'accounting.record.read'], user.account_id);
    for (const res of [
      await api.get(VIEWS),
      await api.post(VIEWS, { name: 'Client', filters: {} }),
      await api.delete(viewUrl(kept.body.id)),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error_code).toBe('FORBIDDEN');
    }
    expect((await stored(t.ctx, user.account_id)).map((v) => v.name)).toEqual(['Read-only too']);
  });

  it('lets an account admin share a view with the account: colleagues see it, only its owner changes it', async () => {
    const admin = await signedIn(t.ctx, 'ACCOUNT_ADMIN');
    const accountId = admin.user.account_id;
    const colleague = await signedIn(t.ctx, 'BOOKKEEPER', accountId);
    const stranger = await signedIn(t.ctx, 'ACCOUNT_ADMIN');

    // A bookkeeper keeps views for themselves alone.
    const refused = await colleague.browser.post(VIEWS, { name: 'For all', filters: {}, shared: true });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(
      errorBody('FORBIDDEN', { details: { role: 'BOOKKEEPER', required_scopes: ['account.admin'] } }),
    );
    const own = await colleague.browser.post(VIEWS, { name: 'Mine', filters: {}, shared: false });
    expect(own.status).toBe(200);
    expect((await colleague.browser.patch(viewUrl(own.body.id), { shared: true })).status).toBe(403);

    const shared = await admin.browser.post(VIEWS, { name: 'Team: uncoded', filters: UNCODED, shared: true });
    expect(shared.status, shared.text).toBe(200);
    expect(shared.body).toMatchObject({ shared: true, mine: true, owner: { user_id: admin.user.user_id } });
    const seen = await colleague.browser.get(VIEWS);
    expect(seen.body.items.map((v: any) => [v.name, v.shared, v.mine, v.owner])).toEqual([
      ['Mine', false, true, { user_id: colleague.user.user_id, name: colleague.user.email }],
      ['Team: uncoded', true, false, { user_id: admin.user.user_id, name: admin.user.email }],
    ]);
    // The admin sees their own, not the colleague's private one; another account sees neither.
    expect((await admin.browser.get(VIEWS)).body.items.map((v: any) => v.name)).toEqual(['Team: uncoded']);
    expect((await stranger.browser.get(VIEWS)).body).toEqual({ items: [] });

    for (const res of [
      await colleague.browser.patch(viewUrl(shared.body.id), { name: 'Taken over' }),
      await colleague.browser.delete(viewUrl(shared.body.id)),
    ]) {
      expect(res.status, res.text).toBe(403);
      expect(res.body).toEqual(
        errorBody('FORBIDDEN', { details: { saved_view_id: shared.body.id, owner_user_id: admin.user.user_id } }),
      );
    }
    const foreign = await stranger.browser.patch(viewUrl(shared.body.id), { name: 'Taken over' });
    expect(foreign.status).toBe(404);

    // Unshared, it is the admin's alone again.
    const unshared = await admin.browser.patch(viewUrl(shared.body.id), { shared: false });
    expect(unshared.body.shared).toBe(false);
    expect((await colleague.browser.get(VIEWS)).body.items.map((v: any) => v.name)).toEqual(['Mine']);
    expect((await colleague.browser.delete(viewUrl(shared.body.id))).status).toBe(404);
    const rows = await t.ctx.db.direct
      .selectFrom('saved_views')
      .select(['name', 'user_id', 'shared'])
      .where('account_id', 'in', [accountId, stranger.user.account_id])
      .orderBy('name')
      .execute();
    expect(rows.map((r) => [r.name, r.user_id, Number(r.shared)])).toEqual([
      ['Mine', colleague.user.user_id, 0],
      ['Team: uncoded', admin.user.user_id, 0],
    ]);
  });

  it('keeps at most 100 views a user', async () => {
    const { user, browser } = await signedIn(t.ctx, 'BOOKKEEPER');
    const rows = Array.from({ length: 100 }, (_, i) => ({
      account_id: user.account_id,
      id: `svw_${String(i).padStart(26, '0')}`,
      user_id: user.user_id,
      name: `View ${i}`,
      name_key: `view ${i}`,
      filters_json: '{}',
      shared: 0,
      created_at: 1,
      updated_at: 1,
    }));
    await t.ctx.db.direct.insertInto('saved_views').values(rows).execute();
    const refused = await browser.post(VIEWS, { name: 'One more', filters: {} });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(errorBody('CONFLICT', { details: { max_saved_views: 100 } }));
    expect((await browser.get(VIEWS)).body.items).toHaveLength(100);
  });
});
