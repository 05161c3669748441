import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  expectNoAxeViolations,
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
} from '../support/browser.js';
import { expectNoAxeViolationsAtBothWidths } from '../support/console-a11y.js';
import { openScreen, seededConsole } from '../support/console-seeded.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/**
 * Issue 31: "axe: no violation of any impact on any page". Every screen of the console, on svc seed's company (so
 * that tables, charts and forms hold data), opened as an account admin (who sees every screen), and the sign-in
 * screens signed out: axe-core with every rule and every impact, minor included, finds nothing, at 1280 px and at
 * 390 px (the phone layout). The states a first load does not show are in axe-states and axe-sign-in-steps.
 */
eachDialectWith(
  'axe on every page of the console',
  (dialect) => startConsoleServer(dialect, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
  (server) => {
    const seeded = seededConsole(server, browser, (page) => expectNoAxeViolationsAtBothWidths(page, 'sign-in'));
    let page: Page;
    const ids = () => seeded()!.ids;
    const base = () => `${server().url}/console`;

    /** Opens a page, waits for its heading and for every region to have loaded, and runs axe on it. */
    async function check(path: string, heading: string | RegExp) {
      page = seeded()!.page;
      await openScreen(page, `${base()}${path}`, heading);
      await expectNoAxeViolationsAtBothWidths(page, path);
    }

    screenshotFailuresThenClose('axe-every-page', seeded);

    it('finds nothing on the review screens: overview, queue, record, coding grid, exports', async () => {
      await check('/', 'Overview');
      // The check sees what it should: an image without a text alternative is a violation.
      await page.evaluate(() => document.querySelector('main')?.append(document.createElement('img')));
      await expect(expectNoAxeViolations(page, 'an image without alt')).rejects.toThrow(/image-alt/);
      await check('/queue', 'Review queue');
      await check('/queue?review_status=REVIEW&sort=-amount', 'Review queue');
      await check(`/records/${ids().record}`, /.+/);
      await check('/coding-grid', 'Coding grid');
      await check('/exports', 'Export');
    });

    it('finds nothing on the coding rules, fields and import, and settings screens', async () => {
      await check('/coding-rules', 'Coding rules');
      await check(`/coding-rules/${ids().rule}`, /.+/);
      await check('/coding-rules/new', 'New coding rule');
      await check('/fields', 'Fields');
      await check(`/fields/${ids().field}`, /.+/);
      // The CSV import's preview, with rows of every outcome.
      const file = 'value,remote_id,is_disabled\nNew one,NEW-1,\nBad,NEW-2,maybe\n';
      await page
        .getByLabel('CSV file')
        .setInputFiles({ name: 'v.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
      await page.getByRole('status', { name: 'Import preview' }).waitFor();
      await expectNoAxeViolationsAtBothWidths(page, 'the CSV import’s preview');
      await check('/settings', 'Settings');
    });

    it('finds nothing on the admin screens: API clients, users, webhooks, integrations, apps, audit, two-step', async () => {
      await check('/api-clients', 'API clients');
      await check('/users', 'Users');
      await check('/webhooks', 'Webhooks');
      await check(`/webhooks/${ids().webhook}`, 'Ledger sync');
      await check('/integrations', 'Integrations');
      await check('/connected-apps', 'Connected apps');
      await check('/audit', 'Audit log');
      await check('/two-step', 'Two-step sign-in');
      await check('/oauth/authorize', 'Connect an app');
      await check('/no-such-page', /.+/);
    });

    it('finds nothing on the screens before sign-in', async () => {
      const context = await newContext(browser());
      try {
        const signedOut = await context.newPage();
        for (const [path, heading] of [
          ['/sign-in', 'Sign in'],
          ['/set-password', 'Set your password'],
        ] as const) {
          await signedOut.goto(`${base()}${path}`);
          await signedOut.getByRole('heading', { level: 1, name: heading }).waitFor();
          await expectNoAxeViolationsAtBothWidths(signedOut, path);
        }
        // A refused sign-in, said in words.
        await signedOut.goto(`${base()}/sign-in`);
        await signInThroughForm(signedOut, { email: 'nobody@example.com', password: 'not the password at all' });
        await signedOut.getByRole('alert').waitFor();
        await expectNoAxeViolationsAtBothWidths(signedOut, 'a refused sign-in');
      } finally {
        await context.close();
      }
    });
  },
  { only: 'sqlite' },
);
