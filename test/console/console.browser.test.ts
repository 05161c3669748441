import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '../../client/src/index.js';
import {
  checkScreen,
  newContext,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { consoleStory, eventually, searchIds, shownRecordIds } from '../support/console-story.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

const STATE_WORDS = {
  PREPARE: 'Prepare',
  REVIEW: 'Review',
  READY_FOR_EXPORT: 'Ready for export',
  EXPORTED: 'Exported',
};
const SOURCE_WORDS = { CARD: 'Card', REIMBURSEMENT: 'Reimbursement', BILL: 'Bill' };

eachDialectWith(
  'console in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    const story = consoleStory(server, dialect, browser, { signedIn: true });
    const { r, base } = story;
    let page: Page;
    let api: SvcClient;
    let accountId: string;
    beforeAll(() => {
      ({ page, api, accountId } = story.opened());
    });

    it("shows the overview's counts, waiting records, failures and exports per day exactly as the API has them", async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
      const table = page.getByRole('table', { name: 'Records by review state and source type' });
      await table.waitFor();
      const overview = await api.review.overview();
      const count = (status: string | null, source: string | null) =>
        overview.counts
          .filter((c) => (!status || c.review_status === status) && (!source || c.source_type === source))
          .reduce((sum, c) => sum + c.count, 0);
      const expected = [
        ['Review state', 'Card', 'Reimbursement', 'Bill', 'Total'],
        ...Object.entries(STATE_WORDS).map(([status, words]) => [
          words,
          ...Object.keys(SOURCE_WORDS).map((source) => String(count(status, source))),
          String(count(status, null)),
        ]),
        ['Total', ...Object.keys(SOURCE_WORDS).map((source) => String(count(null, source))), String(count(null, null))],
      ];
      const rows = await table
        .getByRole('row')
        .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => (cell.textContent ?? '').trim())));
      expect(rows).toEqual(expected);
      expect(count('REVIEW', 'CARD')).toBe(17);
      expect(count('REVIEW', 'REIMBURSEMENT')).toBe(1);

      const waiting = page.getByRole('region', { name: 'Waiting longest' }).getByRole('link');
      expect(await waiting.allInnerTexts()).toEqual(
        overview.waiting_longest.map(
          (w) => `${w.vendor?.name ?? 'Carol Example'}, ${w.amount.amount.toFixed(2)} ${w.amount.currency}`,
        ),
      );
      expect(overview.waiting_longest).toHaveLength(5);
      await expect(
        page.getByRole('region', { name: 'Export failures' }).getByText('No record has a failed export').count(),
      ).resolves.toBe(1);

      const chart = page.getByRole('img', {
        name: 'Exports per day over the last 30 days: 0 records exported, 0 failed.',
      });
      await expect(chart.count()).resolves.toBe(1);
      await page.getByRole('button', { name: 'Show as table' }).click();
      const days = page.getByRole('table', { name: 'Records exported and failed per day (UTC)' });
      await eventually(() => days.getByRole('row').count()).toBe(31);
      expect(overview.exports_per_day).toHaveLength(30);
      await page.getByRole('button', { name: 'Show as table' }).click();
      await checkScreen(page, 'overview', dialect);

      // Each number opens the review queue filtered to the records it counts: as many rows as it says.
      await table.getByRole('link', { name: '17 Review, Card: open in the review queue' }).click();
      await page.waitForURL(/\/queue\?review_status=REVIEW&source_type=CARD/);
      const queue = page.getByRole('table', { name: 'Records matching the filters' });
      await eventually(() => queue.getByRole('row').count()).toBe(17 + 1);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
      await table.waitFor();

      // An error of the API is shown in words, with its request id.
      // The page reads the record (with its allowed moves) from the console's API: the alert shows the request id
      // of that answer, in words.
      const answers: { message: string; request_id: string; error_code: string }[] = [];
      const collect = async (res: { url(): string; json(): Promise<any> }) => {
        if (res.url().includes('/internal/v1/accounting/records/rec_missing')) answers.push(await res.json());
      };
      page.on('response', collect);
      await page.goto(`${base()}/records/rec_missing`);
      const alert = page.getByRole('alert');
      await eventually(async () => {
        const text = await textOf(alert);
        return answers.some(
          (a) => text === `There is no record rec_missing in your account.\n${a.message}\nRequest id: ${a.request_id}`,
        );
      }).toBe(true);
      page.off('response', collect);
      const answer = answers[0]!;
      expect(answer.error_code).toBe('NOT_FOUND');
      await checkScreen(page, 'record-not-found', dialect);
    });

    it("filters the queue by vendor and state, sorts and pages it: the rows are exactly the API's search", async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review queue' }).click();
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
      await page.getByLabel('Vendor').fill('acme');
      await page.getByLabel('Review state').selectOption({ label: 'Review' });
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await eventually(() => page.url()).toBe(`${base()}/queue?review_status=REVIEW&vendor=acme`);
      const [acme] = await searchIds(api, { vendor: 'acme', review_status: 'REVIEW', limit: 25 });
      expect(acme).toEqual([r.uncoded!.id, r.coded!.id, r.stays!.id]);
      await eventually(() => shownRecordIds(page)).toEqual(acme);
      await page.getByRole('status').filter({ hasText: '3 records on page 1' }).waitFor();
      await checkScreen(page, 'queue', dialect);

      // Sorted by amount, descending on the second click; the URL keeps the sort.
      const amount = page.getByRole('columnheader', { name: 'Amount' });
      await amount.getByRole('button').click();
      await eventually(() => amount.getAttribute('aria-sort')).toBe('ascending');
      const [ascending] = await searchIds(api, { vendor: 'acme', review_status: 'REVIEW', sort: 'amount' });
      await eventually(() => shownRecordIds(page)).toEqual(ascending);
      await amount.getByRole('button').click();
      await eventually(() => amount.getAttribute('aria-sort')).toBe('descending');
      await eventually(() => page.url()).toBe(`${base()}/queue?review_status=REVIEW&vendor=acme&sort=-amount`);
      expect(await shownRecordIds(page)).toEqual([r.stays!.id, r.uncoded!.id, r.coded!.id]);

      // Keyset pages of 10: Next follows the cursor, Previous goes back to the page before.
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await eventually(() => page.url()).toBe(`${base()}/queue?sort=-amount`);
      await page.getByLabel('Vendor').fill('zeta');
      await page.getByLabel('Rows per page').selectOption('10');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const zeta = await searchIds(api, { vendor: 'zeta', sort: '-amount', limit: 10 });
      expect(zeta.map((p) => p.length)).toEqual([10, 2]);
      await eventually(() => shownRecordIds(page)).toEqual(zeta[0]);
      await page.getByRole('button', { name: 'Next page' }).click();
      await eventually(() => shownRecordIds(page)).toEqual(zeta[1]);
      await expect(page.getByRole('button', { name: 'Next page' }).isDisabled()).resolves.toBe(true);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await eventually(() => shownRecordIds(page)).toEqual(zeta[0]);
      await expect(page.getByRole('button', { name: 'Previous page' }).isDisabled()).resolves.toBe(true);

      // Nothing matches: the empty state says so.
      await page.getByLabel('Vendor').fill('no such vendor');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('No records match these filters.').waitFor();
    });

    it('gives a read-only user no way to change anything, and the server refuses a forced move with 403', async () => {
      const reader = await newUser(server().db, 'READ_ONLY', accountId);
      const readOnly = await newContext(browser());
      try {
        const other = await readOnly.newPage();
        await other.goto(`${base()}/sign-in`);
        await signInThroughForm(other, reader);
        await other.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await other.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review queue' }).click();
        await eventually(() => shownRecordIds(other)).toEqual((await searchIds(api, { limit: 25 }))[0]);
        await expect(other.getByRole('checkbox').count()).resolves.toBe(2);
        await expect(other.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
        await expect(other.getByRole('button', { name: 'Send back' }).count()).resolves.toBe(0);

        await other.goto(`${base()}/records/${encodeURIComponent(r.stays!.id)}`);
        await other.getByRole('heading', { level: 1, name: 'Acme Travel, 640.00 USD' }).waitFor();
        await other.getByText('Your role can see the coding (in the line items) but not change it.').waitFor();
        await expect(other.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
        await expect(other.getByRole('combobox').count()).resolves.toBe(0);
        await checkScreen(other, 'record-read-only', dialect);

        const forced = await other.evaluate(async (id) => {
          const session = await (await fetch('/auth/session')).json();
          const move = (headers: Record<string, string>) =>
            fetch('/internal/v1/accounting/records/review-status', {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...headers },
              body: JSON.stringify({ review_status: 'READY_FOR_EXPORT', records: [{ id }] }),
            }).then(async (res) => ({ status: res.status, body: await res.json() }));
          return {
            withToken: await move({ 'x-csrf-token': session.csrf_token }),
            withoutToken: await move({}),
          };
        }, r.stays!.id);
        expect(forced.withToken.status).toBe(403);
        expect(forced.withToken.body).toMatchObject({
          error_code: 'FORBIDDEN',
          message: 'Your role (READ_ONLY) does not allow this operation.',
        });
        expect(forced.withoutToken.status).toBe(403);
        expect((await api.accountingRecords.get(r.stays!.id)).review_status).toBe('REVIEW');
      } finally {
        await readOnly.close();
      }
    });
  },
  { only: 'sqlite' },
);
