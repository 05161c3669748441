import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { AccountingRecord, SvcClient } from '../../client/src/index.js';
import {
  checkScreen,
  eventually,
  newContext,
  sharedBrowser,
  signIn,
  signInThroughForm,
  screenshotFailuresThenClose,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

const codingOf = (record: AccountingRecord) =>
  record.line_items.map((line) => line.accounting_field_values.map((c) => `${c.field_name}=${c.field_value_name}`));

eachDialectWith(
  'console: unsaved coding is never lost',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;
    let api: SvcClient;
    let base: string;
    let user: { user_id: string; email: string; password: string };
    const ids: string[] = [];

    /** The signed-in user's draft of a record, as the console's API answers it (the page's own session). */
    const draftOf = (id: string) =>
      page.evaluate(
        async (url) => (await (await fetch(url)).json()) as unknown,
        `/internal/v1/accounting/records/${id}/draft`,
      );
    const picker = () => page.getByRole('combobox', { name: 'GL Account for line 1' });
    const pickTravel = async () => {
      await picker().fill('Trav');
      await page.getByRole('option', { name: 'Travel · 6100' }).click();
      await page.getByText('Unsaved changes on 1 line').waitFor();
    };
    const leaveDialog = () => page.getByRole('dialog', { name: 'Leave without saving?' });
    const recordUrl = (i: number) => `${base}/records/${ids[i]}`;

    beforeAll(async () => {
      const accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      await api.fieldValues.create(gl.svc_id, [
        { value: 'Travel', remote_id: '6100' },
        { value: 'Meals', remote_id: '6200' },
      ]);
      const created = await api.review.createRecords(
        [30, 20, 10].map((amount) => ({
          type: 'CARD_EXPENSE_POST' as const,
          review_status: 'REVIEW' as const,
          amount: { amount, currency: 'USD' },
          posted_at: '2026-11-20T09:00:00Z',
          vendor: { id: 'v_zephyr', name: 'Zephyr Cabs' },
        })),
      );
      ids.push(...created.items.map((r) => r.id));
      base = `${server().url}/console`;
      user = await newUser(server().db, 'BOOKKEEPER', accountId);
      context = await newContext(browser());
      page = await signIn(context, base, user);
    });

    screenshotFailuresThenClose('drafts', () => (page ? { context, page } : undefined));

    it('asks before j, Back, a link or closing the tab leaves unsaved coding; what was left is restored as a draft', async () => {
      await page.goto(`${base}/queue?review_status=REVIEW&vendor=zephyr`);
      await page.getByRole('link', { name: 'Zephyr Cabs' }).first().click();
      await eventually(() => page.url()).toBe(recordUrl(0));
      await pickTravel();
      await page.getByText(/^Kept as your draft \(/).waitFor();

      // j: asked; Stay keeps the page and the edit.
      await page.getByRole('heading', { level: 1 }).click();
      await page.keyboard.press('j');
      await leaveDialog().waitFor();
      await checkScreen(page, 'record-leave-dialog', dialect);
      await leaveDialog().getByRole('button', { name: 'Stay' }).click();
      await leaveDialog().waitFor({ state: 'detached' });
      expect(page.url()).toBe(recordUrl(0));
      await expect(picker().inputValue()).resolves.toBe('Travel');

      // Back: asked, the address stays; a link: asked too.
      await page.evaluate(() => window.history.back());
      await leaveDialog().waitFor();
      await leaveDialog().getByRole('button', { name: 'Stay' }).click();
      expect(page.url()).toBe(recordUrl(0));
      await page.getByRole('link', { name: 'Review queue' }).click();
      await leaveDialog().waitFor();
      await leaveDialog().getByRole('button', { name: 'Stay' }).click();
      expect(page.url()).toBe(recordUrl(0));

      // Closing the tab: the browser asks (beforeunload); dismissed, the page stays.
      const asked = new Promise<string>((resolve) =>
        page.once('dialog', (dialog) => {
          resolve(dialog.type());
          void dialog.dismiss();
        }),
      );
      await page.close({ runBeforeUnload: true });
      expect(await asked).toBe('beforeunload');
      expect(page.isClosed()).toBe(false);

      // j, Leave: the next record; nothing was saved, the draft is kept.
      await page.getByRole('heading', { level: 1 }).click();
      await page.keyboard.press('j');
      await leaveDialog().getByRole('button', { name: 'Leave' }).click();
      await eventually(() => page.url()).toBe(recordUrl(1));
      await page.getByRole('heading', { level: 1, name: 'Zephyr Cabs, 20.00 USD' }).waitFor();
      expect((await api.accountingRecords.get(ids[0]!)).version).toBe(1);
      expect(await draftOf(ids[0]!)).toMatchObject({
        draft: { accounting_record_id: ids[0], version: 1, lines: [{ values: [{ label: 'Travel' }] }] },
      });

      // Back to it (nothing unsaved here: no question): the draft is restored.
      await page.goBack();
      await eventually(() => page.url()).toBe(recordUrl(0));
      await page.getByText(/^Draft restored from .* — Save or Discard\.$/).waitFor();
      await expect(picker().inputValue()).resolves.toBe('Travel');
      await checkScreen(page, 'record-draft-restored', dialect);

      // Discard: the record's coding again, and no draft.
      await page.getByRole('button', { name: 'Discard changes' }).click();
      await eventually(() => picker().inputValue()).toBe('');
      await page.getByText(/^Draft restored from/).waitFor({ state: 'detached' });
      await eventually(() => draftOf(ids[0]!)).toEqual({ draft: null });
    });

    it('keeps the draft through an expired session and a new sign-in; a newer version says the record changed; saving clears the draft', async () => {
      await page.goto(recordUrl(2));
      await pickTravel();
      await page.getByText(/^Kept as your draft \(/).waitFor();

      // The session ends on the server (as an idle expiry does); the next request finds it gone.
      await server().db.direct.deleteFrom('user_sessions').where('user_id', '=', user.user_id).execute();
      // Meanwhile someone else changes the record.
      await api.review.moveRecords({ review_status: 'PREPARE', records: [{ id: ids[2]!, version: 1 }] });
      await page.getByRole('link', { name: 'Review queue' }).click();
      await leaveDialog().getByRole('button', { name: 'Leave' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await signInThroughForm(page, user);
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();

      await page.goto(recordUrl(2));
      await page.getByText(/^Draft restored from .* — Save or Discard\.$/).waitFor();
      await page
        .getByText('The record changed since this draft was made (version 1 then, version 2 now)', { exact: false })
        .waitFor();
      await expect(picker().inputValue()).resolves.toBe('Travel');

      await page.getByRole('button', { name: 'Save coding' }).click();
      await page.getByText('Coding saved: the record is now at version 3.').waitFor();
      const saved = await api.accountingRecords.get(ids[2]!, { single_entry: true });
      expect([saved.version, codingOf(saved)]).toEqual([3, [['GL Account=Travel']]]);
      await eventually(() => draftOf(ids[2]!)).toEqual({ draft: null });
      await page.getByText(/^Draft restored from/).waitFor({ state: 'detached' });
    });

    it('an edit the server refused because the session had ended is kept by the tab and restored after signing in', async () => {
      await page.goto(recordUrl(1));
      await pickTravel();
      await page.getByText(/^Kept as your draft \(/).waitFor();
      // The values of "Mea" are read while signed in (the picker keeps its answers a while).
      await picker().fill('Mea');
      await page.getByRole('option', { name: 'Meals · 6200' }).waitFor();
      await picker().press('Escape');
      await eventually(() => picker().inputValue()).toBe('Travel');

      await server().db.direct.deleteFrom('user_sessions').where('user_id', '=', user.user_id).execute();
      // The next pick's draft is refused (401): the console asks to sign in again, and brings the user back here.
      await picker().fill('Mea');
      await page.getByRole('option', { name: 'Meals · 6200' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await signInThroughForm(page, user);
      await eventually(() => page.url()).toBe(recordUrl(1));
      await page.getByText(/^Draft restored from .* — Save or Discard\.$/).waitFor();
      await expect(picker().inputValue()).resolves.toBe('Meals');
      expect(await draftOf(ids[1]!)).toMatchObject({
        draft: { version: 1, lines: [{ values: [{ label: 'Meals' }] }] },
      });
      expect((await api.accountingRecords.get(ids[1]!)).version).toBe(1);

      await page.getByRole('button', { name: 'Discard changes' }).click();
      await eventually(() => draftOf(ids[1]!)).toEqual({ draft: null });
    });
  },
  { only: 'sqlite' },
);
