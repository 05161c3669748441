import { expect, it } from 'vitest';
import { ADMIN } from '../support/accounting.js';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody } from '../support/expect.js';

const draftUrl = (id: string) => `/internal/v1/accounting/records/${id}/draft`;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** A draft body: line L's field F set to value V (or emptied). */
const draftOf = (lineId: string, svcId: string | null = 'efo_1', label = 'Travel') => ({
  version: 1,
  lines: [{ line_id: lineId, values: [{ field_id: 'extended_field_1', svc_id: svcId, label }] }],
});

/** An account with a record under review, its admin API client, and a signed-in bookkeeper. */
async function account(ctx: TestContext) {
  const api = await ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read']);
  const record = await api.newRecord({ review_status: 'REVIEW' });
  const user = await newUser(ctx.db, 'BOOKKEEPER', api.accountId);
  return { api, record, user, lineId: record.line_items[0].id as string, browser: await Browser.signIn(ctx.app, user) };
}

/** The stored draft rows of a record (every user's). */
const storedDrafts = (ctx: TestContext, recordId: string) =>
  ctx.db.direct.selectFrom('record_drafts').selectAll().where('record_id', '=', recordId).execute();

describeEachDialect('console: drafts of a record’s coding', (t) => {
  it('keeps, answers, replaces and deletes the signed-in user’s draft', async () => {
    const { record, browser, lineId, user } = await account(t.ctx);
    const none = await browser.get(draftUrl(record.id));
    expect(none.status, none.text).toBe(200);
    expect(none.body).toEqual({ draft: null });

    const put = await browser.put(draftUrl(record.id), draftOf(lineId));
    expect(put.status, put.text).toBe(200);
    const draft = {
      accounting_record_id: record.id,
      version: 1,
      lines: draftOf(lineId).lines,
      updated_at: expect.stringMatching(TIMESTAMP),
    };
    expect(put.body).toEqual({ draft });
    expect((await browser.get(draftUrl(record.id))).body).toEqual({ draft: put.body.draft });

    const emptied = await browser.put(draftUrl(record.id), draftOf(lineId, null, ''));
    expect(emptied.status, emptied.text).toBe(200);
    expect((await browser.get(draftUrl(record.id))).body.draft.lines).toEqual(draftOf(lineId, null, '').lines);
    const rows = await storedDrafts(t.ctx, record.id);
    expect(rows.map((r) => [r.account_id, r.user_id, Number(r.version)])).toEqual([[user.account_id, user.user_id, 1]]);

    const deleted = await browser.delete(draftUrl(record.id));
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await browser.get(draftUrl(record.id))).body).toEqual({ draft: null });
    expect(await storedDrafts(t.ctx, record.id)).toEqual([]);
    // Deleting again: still no draft, no error.
    expect((await browser.delete(draftUrl(record.id))).status).toBe(200);
  });

  it('survives the session: signed out (or expired), then signed in again, the draft is there', async () => {
    const { record, browser, lineId, user } = await account(t.ctx);
    expect((await browser.put(draftUrl(record.id), draftOf(lineId))).status).toBe(200);
    // The session ends server-side (as an idle expiry's clean-up does): the old cookie no longer signs in.
    await t.ctx.db.direct.deleteFrom('user_sessions').where('user_id', '=', user.user_id).execute();
    const ended = await browser.get(draftUrl(record.id));
    expect(ended.status).toBe(401);
    expect(ended.body).toEqual(errorBody('UNAUTHORIZED'));
    const again = await Browser.signIn(t.ctx.app, user);
    const restored = await again.get(draftUrl(record.id));
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.draft).toMatchObject({ accounting_record_id: record.id, lines: draftOf(lineId).lines });
  });

  it('never shows or changes another user’s draft, nor another account’s', async () => {
    const mine = await account(t.ctx);
    expect((await mine.browser.put(draftUrl(mine.record.id), draftOf(mine.lineId))).status).toBe(200);

    // A colleague in the same account has a draft of their own, or none.
    const colleague = await Browser.signIn(t.ctx.app, await newUser(t.ctx.db, 'BOOKKEEPER', mine.api.accountId));
    expect((await colleague.get(draftUrl(mine.record.id))).body).toEqual({ draft: null });
    expect((await colleague.put(draftUrl(mine.record.id), draftOf(mine.lineId, 'efo_2', 'Meals'))).status).toBe(200);
    expect((await colleague.delete(draftUrl(mine.record.id))).status).toBe(200);
    const kept = await mine.browser.get(draftUrl(mine.record.id));
    expect(kept.body.draft.lines).toEqual(draftOf(mine.lineId).lines);

    // Another account's user: the record is not theirs at all (404, as if absent), and nothing changes.
    const other = await account(t.ctx);
    for (const res of [
      await other.browser.get(draftUrl(mine.record.id)),
      await other.browser.put(draftUrl(mine.record.id), draftOf(mine.lineId, 'efo_3', 'Stolen')),
      await other.browser.delete(draftUrl(mine.record.id)),
    ]) {
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual(errorBody('NOT_FOUND', { details: { accounting_record_id: mine.record.id } }));
    }
    const rows = await storedDrafts(t.ctx, mine.record.id);
    expect(rows.map((r) => [r.user_id, JSON.parse(r.lines_json)[0].values[0].label])).toEqual([
      [mine.user.user_id, 'Travel'],
    ]);
  });

  it('writes need the session’s CSRF token; API clients and read-only users may not keep drafts', async () => {
    const { api, record, browser, lineId } = await account(t.ctx);
    browser.csrf = false;
    for (const res of [
      await browser.put(draftUrl(record.id), draftOf(lineId)),
      await browser.delete(draftUrl(record.id)),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(errorBody('CSRF_TOKEN_INVALID'));
    }
    expect(await storedDrafts(t.ctx, record.id)).toEqual([]);

    const byClient = await api.get(draftUrl(record.id));
    expect(byClient.status).toBe(403);
    expect(byClient.body).toEqual(errorBody('FORBIDDEN'));
    expect((await api.put(draftUrl(record.id), draftOf(lineId))).status).toBe(403);

    const readOnly = await Browser.signIn(t.ctx.app, await newUser(t.ctx.db, 'READ_ONLY', api.accountId));
    const refused = await readOnly.put(draftUrl(record.id), draftOf(lineId));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(
      errorBody('FORBIDDEN', {
        details: { role: 'READ_ONLY', required_scopes: ['accounting.record.review', 'accounting.record.admin'] },
      }),
    );
    expect(await storedDrafts(t.ctx, record.id)).toEqual([]);
  });

  it('refuses an unknown record, an invalid draft and one too large, storing nothing', async () => {
    const { record, browser, lineId } = await account(t.ctx);
    const unknown = await browser.put(draftUrl('accr_unknown'), draftOf(lineId));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(errorBody('NOT_FOUND', { details: { accounting_record_id: 'accr_unknown' } }));

    const invalid = await browser.put(draftUrl(record.id), { version: 0, lines: [{ line_id: lineId }], extra: 1 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error_code).toBe('INVALID_REQUEST');
    expect(invalid.body.details.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '/extra',
      '/lines/0/values',
      '/version',
    ]);

    // 64 KiB of lines at most: 300 lines of long labels is past it.
    const long = 'x'.repeat(250);
    const huge = {
      version: 1,
      lines: Array.from({ length: 300 }, (_, i) => ({
        line_id: `${lineId}_${i}`,
        values: [{ field_id: 'extended_field_1', svc_id: 'efo_1', label: long }],
      })),
    };
    const tooLarge = await browser.put(draftUrl(record.id), huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual(errorBody('PAYLOAD_TOO_LARGE', { details: { limit_bytes: 65536 } }));
    expect(await storedDrafts(t.ctx, record.id)).toEqual([]);
  });
});
