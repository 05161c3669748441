import type { BrowserContext, Page, Route } from 'playwright-core';
import type { SvcClient } from '../../client/src/index.js';
import { beforeAll, expect, it } from 'vitest';
import {
  eventually,
  holdValueSearch,
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signIn,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/** What the service answers while its database is down (the SDK's SvcUnavailableError). */
const unavailable = (route: Route) =>
  route.request().method() === 'GET'
    ? route.fulfill({
        status: 503,
        json: { error_code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable.', request_id: 'req_down' },
      })
    : route.fallback();

eachDialectWith(
  'console: the record page when the service is slow or down',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let context: BrowserContext;
    let page: Page;
    let api: SvcClient;
    /** Two records of Zephyr Cabs (30.00 and 12.00 USD), and a field without values ("Project"). */
    let recordId: string;
    let otherId: string;
    let spareFieldId: string;
    const url = (path: string) => `${server().url}/console/${path}`;

    beforeAll(async () => {
      const accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      await api.fieldValues.create(gl.svc_id, [
        { value: 'Travel', remote_id: '6100' },
        { value: 'Transport', remote_id: '6150' },
      ]);
      const created = await api.review.createRecords(
        [30, 12].map((amount) => ({
          type: 'CARD_EXPENSE_POST' as const,
          review_status: 'REVIEW' as const,
          amount: { amount, currency: 'USD' },
          posted_at: '2026-11-20T09:00:00Z',
          vendor: { id: 'v_zephyr', name: 'Zephyr Cabs' },
        })),
      );
      recordId = created.items[0]!.id;
      otherId = created.items[1]!.id;
      spareFieldId = (await api.fields.create({ name: 'Project', group: 'ACCOUNTING' })).svc_id;
      context = await newContext(browser());
      // The page's clock, which the test moves: what the console read becomes stale when the test says so.
      await context.clock.install();
      page = await signIn(context, `${server().url}/console`, await newUser(server().db, 'BOOKKEEPER', accountId));
    });

    screenshotFailuresThenClose('record-slow-service', () => (page ? { context, page } : undefined));

    it('keeps the record page and its unsaved coding when reading the record and the fields again fails; says so, and tries again', async () => {
      await page.goto(url(`records/${recordId}`));
      await page.getByRole('heading', { level: 1, name: 'Zephyr Cabs, 30.00 USD' }).waitFor();
      const picker = page.getByRole('combobox', { name: 'GL Account for line 1' });
      await picker.fill('Trav');
      await page.getByRole('option', { name: 'Travel · 6100' }).click();
      await page.getByText('Unsaved changes on 1 line').waitFor();

      // The service goes down; the user comes back to the tab after a while: the page reads the record and the
      // fields again (TanStack Query's refetch on focus, past their stale time), and both fail.
      const isRecord = (url: URL) => url.pathname.endsWith(`/accounting/records/${recordId}`);
      const isFields = (url: URL) => url.pathname.endsWith('/fields');
      const recordFailed = page
        .getByRole('alert')
        .filter({ hasText: 'The record could not be read again: the page shows it as it was.' });
      const fieldsFailed = page
        .getByRole('alert')
        .filter({ hasText: 'The fields could not be read again: the page shows it as it was.' });
      await page.route(isRecord, unavailable);
      await page.route(isFields, unavailable);
      try {
        await page.clock.fastForward('05:00');
        await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
        await recordFailed.waitFor();
        await fieldsFailed.waitFor();
        await expect(recordFailed.getByText('Request id: req_down').count()).resolves.toBe(1);

        // Nothing was taken away: one page, its heading, the coding form with the unsaved choice in it.
        await expect(page.getByRole('heading', { level: 1 }).allInnerTexts()).resolves.toEqual([
          'Zephyr Cabs, 30.00 USD',
        ]);
        await expect(page.getByText('Unsaved changes on 1 line').count()).resolves.toBe(1);
        await expect(picker.inputValue()).resolves.toBe('Travel');
      } finally {
        await page.unroute(isRecord);
        await page.unroute(isFields);
      }

      // The service is back: "Try again" reads both, the notices go, the unsaved choice stays.
      await recordFailed.getByRole('button', { name: 'Try again' }).click();
      await recordFailed.waitFor({ state: 'detached' });
      // Its Try again had the focus: it goes to the page's heading, not to the page's body.
      await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Zephyr Cabs, 30.00 USD');
      await fieldsFailed.getByRole('button', { name: 'Try again' }).click();
      await eventually(() => page.getByRole('alert').filter({ hasText: 'could not be read again' }).count()).toBe(0);
      await expect(page.getByText('Unsaved changes on 1 line').count()).resolves.toBe(1);
      await expect(picker.inputValue()).resolves.toBe('Travel');
    });

    it('takes the top match when Enter is pressed before the search answered, and never saves the form for it', async () => {
      await page.goto(url(`records/${otherId}`));
      await page.getByRole('heading', { level: 1, name: 'Zephyr Cabs, 12.00 USD' }).waitFor();
      // The search's answer is held until Enter has been pressed.
      const search = await holdValueSearch(page);
      try {
        const picker = page.getByRole('combobox', { name: 'GL Account for line 1' });
        await picker.fill('Trav');
        await page.getByText('Searching…').waitFor();
        await picker.press('Enter');
        search.release();
        await eventually(() => picker.inputValue()).toBe('Travel');
        await page.getByText('Unsaved changes on 1 line').waitFor();
      } finally {
        await search.stop();
      }
      // Nothing was saved by that Enter: the record is as it was, uncoded, at version 1.
      const stored = await api.accountingRecords.get(otherId, { single_entry: true });
      expect({
        version: stored.version,
        coded: stored.line_items.some((line) => line.accounting_field_values.length > 0),
      }).toEqual({ version: 1, coded: false });
    });

    it('says a thing is gone when reading it again finds it deleted, rather than keeping it as it was', async () => {
      await page.goto(url(`fields/${spareFieldId}`));
      await page.getByRole('heading', { level: 1, name: 'Project' }).waitFor();
      await api.fields.delete(spareFieldId);
      await page.clock.fastForward('05:00');
      await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
      await page
        .getByRole('alert')
        .filter({ hasText: /^There is no field .* in your account\./ })
        .waitFor();
      await expect(page.getByRole('heading', { level: 1 }).allInnerTexts()).resolves.toEqual(['Field']);
      await expect(page.getByText('could not be read again').count()).resolves.toBe(0);
    });

    it('leaves the focus where a Tab pressed while the record loaded put it, and gives it to the heading after a navigation', async () => {
      // A record of its own (no draft of an earlier test on it), opened by a first load of the page whose answer is
      // held until the user has pressed Tab.
      const created = await api.review.createRecords([
        {
          type: 'CARD_EXPENSE_POST',
          review_status: 'REVIEW',
          amount: { amount: 9, currency: 'USD' },
          posted_at: '2026-11-20T09:00:00Z',
          lines: [{ amount: { amount: 9, currency: 'USD' }, memo: 'Parking' }],
          vendor: { id: 'v_zephyr', name: 'Zephyr Cabs' },
        },
      ]);
      const id = created.items[0]!.id;
      const isRecord = (url: URL) => url.pathname.endsWith(`/accounting/records/${id}`);
      let held: Route | undefined;
      let asked!: () => void;
      const wasAsked = new Promise<void>((resolve) => (asked = resolve));
      await page.route(isRecord, (route) => {
        if (held) return route.continue();
        held = route;
        asked();
      });
      const focused = () =>
        page.evaluate(() => `${document.activeElement?.tagName ?? ''} ${document.activeElement?.textContent ?? ''}`);
      try {
        await page.goto(url(`records/${id}`));
        await page.getByText('Loading the record…').waitFor();
        await wasAsked;
        await page.keyboard.press('Tab');
        await expect(focused()).resolves.toBe('A Skip to content');
      } finally {
        await held?.continue();
        await page.unroute(isRecord);
      }
      await page.getByRole('heading', { level: 1, name: 'Zephyr Cabs, 9.00 USD' }).waitFor();
      await expect(focused()).resolves.toBe('A Skip to content');

      // A navigation inside the console: the new page's heading takes the focus from the link clicked.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fields' }).click();
      await page.getByRole('heading', { level: 1, name: 'Fields' }).waitFor();
      await eventually(focused).toBe('H1 Fields');
    });
  },
  { only: 'sqlite' },
);
