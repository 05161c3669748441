import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { RecordSearchQuery, SvcClient } from '../../client/src/index.js';
import { seed } from '../../src/cli/seed.js';
import {
  expectNoAxeViolations,
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
  tableCells,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually, searchIds, shownRecordIds } from '../support/console-story.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/** The search a queue address asks for (the queue's own parameters, as its links write them). */
function searchOf(href: string): RecordSearchQuery {
  const params = new URL(href, 'http://x').searchParams;
  const query: RecordSearchQuery = {};
  const status = params.get('review_status');
  const source = params.get('source_type');
  if (status) query.review_status = status as RecordSearchQuery['review_status'];
  if (source) query.source_type = source as RecordSearchQuery['source_type'];
  if (params.get('has_export_failure') === 'true') query.has_export_failure = true;
  return query;
}

eachDialectWith(
  'overview on svc seed’s company: every number opens the queue to as many records; exports charted',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let api: SvcClient;
    const base = () => `${server().url}/console`;

    beforeAll(async () => {
      const accountId = newAccountId();
      await seed(server().db, ['--account', accountId, '--records', '400', '--values', '40'], () => {});
      api = await server().apiClient(accountId);
      const user = await newUser(server().db, 'BOOKKEEPER', accountId);
      const context = await newContext(browser());
      page = await context.newPage();
      opened = { context, page };
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, user);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });
    screenshotFailuresThenClose('overview-seed', () => opened);

    it('charts the exports the seed reported, per day, as the API has them', async () => {
      const overview = await api.review.overview();
      const exported = overview.exports_per_day.reduce((n, d) => n + d.exported, 0);
      const failed = overview.exports_per_day.reduce((n, d) => n + d.failed, 0);
      expect(exported).toBeGreaterThan(0);
      const chart = page.getByRole('img', {
        name: `Exports per day over the last 30 days: ${exported} records exported, ${failed} failed.`,
      });
      await expect(chart.count()).resolves.toBe(1);
      await page.getByRole('button', { name: 'Show as table' }).click();
      await expect(tableCells(page, 'Records exported and failed per day (UTC)')).resolves.toEqual(
        overview.exports_per_day.map((d) => [String(d.exported), String(d.failed)]),
      );
      // Each day's non-zero number opens the queue to exactly the records it counts.
      const days = page.getByRole('table', { name: 'Records exported and failed per day (UTC)' });
      const links = await days
        .getByRole('link')
        .evaluateAll((as) =>
          as.map((a) => ({ href: a.getAttribute('href') ?? '', text: (a.textContent ?? '').trim() })),
        );
      expect(links.length).toBe(
        overview.exports_per_day.filter((d) => d.exported > 0).length +
          overview.exports_per_day.filter((d) => d.failed > 0).length,
      );
      for (const { href, text } of links) {
        const params = new URL(href, 'http://x').searchParams;
        const query: RecordSearchQuery = {
          exported_on: params.get('exported_on')!,
          export_outcome: params.get('export_outcome') as RecordSearchQuery['export_outcome'],
          limit: 500,
        };
        expect((await searchIds(api, query)).flat().length, href).toBe(Number(text));
      }
      const { href } = links[0]!;
      await days.locator(`a[href="${href}"]`).click();
      await page.waitForURL((url) => `${url.pathname}${url.search}`.endsWith(href));
      const params = new URL(href, 'http://x').searchParams;
      const [first] = await searchIds(api, {
        exported_on: params.get('exported_on')!,
        export_outcome: params.get('export_outcome') as RecordSearchQuery['export_outcome'],
        limit: 25,
      });
      await eventually(() => shownRecordIds(page)).toEqual(first);
      await page.getByText(/^Records with an export (success|failure) on /).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await expectNoAxeViolations(page, 'overview of the seeded company');
    });

    it('opens the queue from each number filtered to exactly the records it counts', async () => {
      const table = page.getByRole('table', { name: 'Records by review state and source type' });
      await table.waitFor();
      const links = await table
        .getByRole('link')
        .evaluateAll((as) =>
          as.map((a) => ({ href: a.getAttribute('href') ?? '', text: (a.textContent ?? '').trim() })),
        );
      // Every non-zero number (each state's name opens that state whatever it counts).
      const numbers = links.filter(({ text }) => /^[\d,]+$/.test(text));
      expect(numbers.length).toBeGreaterThan(10);
      for (const { href, text } of numbers) {
        const found = (await searchIds(api, { ...searchOf(href), limit: 500 })).flat();
        expect(found.length, href).toBe(Number(text.replace(/,/g, '')));
      }

      // One opened through the page: the queue shows the records the search finds.
      const { href } = numbers.find((n) => n.href.includes('review_status=REVIEW&source_type=CARD'))!;
      await table.locator(`a[href="${href}"]`).click();
      await page.waitForURL(/\/queue\?review_status=REVIEW&source_type=CARD$/);
      const [first] = await searchIds(api, { review_status: 'REVIEW', source_type: 'CARD', limit: 25 });
      await eventually(() => shownRecordIds(page)).toEqual(first);

      // The failed exports: the overview's number is the queue's filter's.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
      const overview = await api.review.overview();
      expect(overview.failed_exports).toBeGreaterThan(0);
      const failures = page.getByRole('region', { name: 'Export failures' });
      await failures.getByText(`${overview.failed_exports} records whose last export failed`).waitFor();
      await failures.getByRole('link', { name: 'Show failed exports in the review queue' }).click();
      await page.waitForURL(/\/queue\?has_export_failure=true$/);
      const found = (await searchIds(api, { has_export_failure: true, limit: 500 })).flat();
      expect(found).toHaveLength(overview.failed_exports);
      await eventually(() => shownRecordIds(page)).toEqual(found.slice(0, 25));
    });
  },
  { only: 'sqlite' },
);
