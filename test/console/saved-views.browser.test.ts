import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { RecordCreate, SvcClient } from '../../client/src/index.js';
import {
  expectNoAxeViolations,
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually, searchIds, shownRecordIds } from '../support/console-story.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

eachDialectWith(
  'review queue: saved views',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let api: SvcClient;
    let userId: string;
    let accountId: string;
    const base = () => `${server().url}/console`;
    const stored = async () =>
      (await server().db.direct.selectFrom('saved_views').selectAll().where('user_id', '=', userId).execute()).map(
        (r) => [r.name, JSON.parse(r.filters_json)],
      );
    const viewsList = () => page.getByRole('region', { name: 'Saved views' }).getByRole('listitem');

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId);
      const record = (amount: number, review_status: 'REVIEW' | 'PREPARE', vendor: string): RecordCreate => ({
        type: 'CARD_EXPENSE_POST',
        amount: { amount, currency: 'USD' },
        posted_at: '2026-06-11T09:00:00Z',
        review_status,
        vendor: { id: `v_${vendor}`, name: vendor },
      });
      await api.review.createRecords([
        record(120, 'REVIEW', 'Acme'),
        record(40, 'REVIEW', 'Bistro'),
        record(300, 'REVIEW', 'Cafe'),
        record(500, 'PREPARE', 'Deli'),
      ]);
      const bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
      userId = bookkeeper.user_id;
      const context = await newContext(browser());
      page = await context.newPage();
      opened = { context, page };
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, bookkeeper);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });
    screenshotFailuresThenClose('saved-views', () => opened);

    it('saves the filters and sort under a name, lists the view and opens the queue so filtered', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(async () => (await shownRecordIds(page)).length).toBe(4);
      await expect(
        page.getByText('None yet: choose filters and a sort, then save them under a name.').count(),
      ).resolves.toBe(1);

      await page.getByLabel('Review state').selectOption('REVIEW');
      await page.getByLabel('Minimum amount').fill('100');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByRole('button', { name: 'Amount' }).click();
      await page.getByRole('button', { name: 'Amount' }).click();
      const filters = { review_status: 'REVIEW' as const, 'amount[gte]': 100, sort: '-amount' as const };
      const expected = (await searchIds(api, filters))[0]!;
      expect(expected).toHaveLength(2);
      await eventually(() => shownRecordIds(page)).toEqual(expected);

      await page.getByLabel('Name of this view').fill('Big reviews');
      await page.getByRole('button', { name: 'Save view' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved “Big reviews”.' }).waitFor();
      await eventually(stored).toEqual([['Big reviews', filters]]);
      const link = page.getByRole('link', { name: 'Big reviews' });
      await expect(link.getAttribute('aria-current')).resolves.toBe('page');

      // From the unfiltered queue, the view opens the queue with its filters and sort.
      await page.goto(`${base()}/queue`);
      await eventually(async () => (await shownRecordIds(page)).length).toBe(4);
      await expect(link.getAttribute('aria-current')).resolves.toBeNull();
      await link.click();
      await eventually(() => shownRecordIds(page)).toEqual(expected);
      const params = new URL(page.url()).searchParams;
      expect([params.get('review_status'), params.get('amount_min'), params.get('sort')]).toEqual([
        'REVIEW',
        '100',
        '-amount',
      ]);
      await expect(page.getByLabel('Review state').inputValue()).resolves.toBe('REVIEW');
      await expectNoAxeViolations(page, 'queue with a saved view');
    });

    it('refuses a name the user has already, at the input, and saves nothing', async () => {
      await page.goto(`${base()}/queue?review_status=PREPARE`);
      const name = page.getByLabel('Name of this view');
      await name.fill('big REVIEWS');
      await page.getByRole('button', { name: 'Save view' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'The view was not saved.' });
      await alert.waitFor();
      await expect(alert.innerText()).resolves.toContain(
        'You have a saved view named “big REVIEWS” already: choose another name.',
      );
      await expect(name.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(stored()).resolves.toHaveLength(1);
      await expectNoAxeViolations(page, 'queue with a refused view name');
    });

    it('renames and deletes a view with the keyboard alone', async () => {
      await page.goto(`${base()}/queue`);
      await viewsList().first().waitFor();
      await page.getByRole('button', { name: 'Rename Big reviews' }).focus();
      await page.keyboard.press('Enter');
      const newName = page.getByLabel('New name');
      await expect(newName.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
      await newName.fill('Large reviews');
      await page.keyboard.press('Enter');
      await page.getByRole('link', { name: 'Large reviews' }).waitFor();
      await eventually(async () => (await stored()).map(([n]) => n)).toEqual(['Large reviews']);

      await page.getByRole('button', { name: 'Delete Large reviews' }).focus();
      await page.keyboard.press('Enter');
      const confirm = page.getByRole('button', { name: 'Yes, delete Large reviews' });
      await expect(confirm.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
      await page.keyboard.press('Enter');
      await page.getByText('None yet: choose filters and a sort, then save them under a name.').waitFor();
      await eventually(stored).toEqual([]);
    });

    it('shows a view an admin shared to the whole account, whose only its owner changes', async () => {
      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      const adminContext = await newContext(browser());
      try {
        const adminPage = await adminContext.newPage();
        await adminPage.goto(`${base()}/sign-in`);
        await signInThroughForm(adminPage, admin);
        await adminPage.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await adminPage.goto(`${base()}/queue?has_export_failure=true`);
        await adminPage.getByLabel('Name of this view').fill('Failed exports');
        await adminPage.getByLabel('Share with everyone in the account').check();
        await adminPage.getByRole('button', { name: 'Save view' }).click();
        await adminPage.getByRole('status').filter({ hasText: 'Saved “Failed exports”.' }).waitFor();
        const item = adminPage.getByRole('listitem').filter({ hasText: 'Failed exports' });
        await item.getByText('shared with the account').waitFor();
        await expectNoAxeViolations(adminPage, 'queue with a shared view (its owner)');
      } finally {
        await adminContext.close();
      }

      // The bookkeeper sees it, whose it is, and no control that would change it (the service refuses 403 anyway).
      await page.goto(`${base()}/queue`);
      const item = viewsList().filter({ hasText: 'Failed exports' });
      await item.getByText(`shared by ${admin.email}`).waitFor();
      await expect(item.getByRole('button').count()).resolves.toBe(0);
      await expect(page.getByLabel('Share with everyone in the account').count()).resolves.toBe(0);
      await item.getByRole('link', { name: 'Failed exports' }).click();
      await page.waitForURL(/\/queue\?has_export_failure=true$/);
      await expectNoAxeViolations(page, 'queue with a colleague’s shared view');
    });
  },
  { only: 'sqlite' },
);
