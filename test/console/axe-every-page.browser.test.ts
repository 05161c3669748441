import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '../../client/src/index.js';
import { seed } from '../../src/cli/seed.js';
import { vendorsService } from '../../src/modules/integrations/vendors.service.js';
import {
  API_SCOPES,
  eventually,
  expectNoAxeViolations,
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/**
 * Issue 31: "axe: no violation of any impact on any page". Every screen of the console, on svc seed's company (so
 * that tables, charts and forms hold data), opened as an account admin (who sees every screen), and the sign-in
 * screens signed out: axe-core with every rule and every impact, minor included, finds nothing.
 */
eachDialectWith(
  'axe on every page of the console',
  (dialect) => startConsoleServer(dialect, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let api: SvcClient;
    const ids: Record<string, string> = {};
    const base = () => `${server().url}/console`;

    /** Opens a page, waits for its heading and for every region to have loaded, and runs axe on it. */
    async function check(path: string, heading: string | RegExp) {
      await page.goto(`${base()}${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await eventually(() =>
        page
          .getByRole('status')
          .filter({ hasText: /Loading|loading/ })
          .count(),
      ).toBe(0);
      await expectNoAxeViolations(page, path);
    }

    beforeAll(async () => {
      const accountId = newAccountId();
      await seed(server().db, ['--account', accountId, '--records', '120', '--values', '40'], () => {});
      api = await server().apiClient(accountId, [
        ...API_SCOPES,
        'accounting.integration.write',
        'webhooks.read',
        'webhooks.write',
      ]);
      const [review] = (await api.review.search({ review_status: 'REVIEW', limit: 1 })).items;
      ids.record = review!.id;
      ids.field = (await api.fields.list()).items[0]!.svc_id;
      ids.rule = (await api.codingRules.list()).items[0]!.id;
      await vendorsService.create(server().db, { vendor: 'acme-ledger', name: 'Acme Ledger' });
      await api.integrations.create({ vendor: 'acme-ledger', vendor_account_id: 'acme-1' });
      const hook = await api.webhooks.create({
        url: 'http://127.0.0.1:9/hook',
        description: 'Ledger sync',
        event_types: ['accounting_record.ready_for_export'],
      });
      ids.webhook = hook.id;
      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      const context = await newContext(browser());
      page = await context.newPage();
      opened = { context, page };
      await page.goto(`${base()}/sign-in`);
      // The page as the user sees it: after the console has drawn it (axe on the bare document finds no heading).
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await expectNoAxeViolations(page, 'sign-in');
      await signInThroughForm(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });
    screenshotFailuresThenClose('axe-every-page', () => opened);

    it('finds nothing on the review screens: overview, queue, record, coding grid, exports', async () => {
      await check('/', 'Overview');
      // The check sees what it should: an image without a text alternative is a violation.
      await page.evaluate(() => document.querySelector('main')?.append(document.createElement('img')));
      await expect(expectNoAxeViolations(page, 'an image without alt')).rejects.toThrow(/image-alt/);
      await check('/queue', 'Review queue');
      await check('/queue?review_status=REVIEW&sort=-amount', 'Review queue');
      await check(`/records/${ids.record}`, /.+/);
      await check('/coding-grid', 'Coding grid');
      await check('/exports', 'Export');
    });

    it('finds nothing on the coding rules, fields and import, and settings screens', async () => {
      await check('/coding-rules', 'Coding rules');
      await check(`/coding-rules/${ids.rule}`, /.+/);
      await check('/coding-rules/new', 'New coding rule');
      await check('/fields', 'Fields');
      await check(`/fields/${ids.field}`, /.+/);
      // The CSV import's preview, with rows of every outcome.
      const file = 'value,remote_id,is_disabled\nNew one,NEW-1,\nBad,NEW-2,maybe\n';
      await page
        .getByLabel('CSV file')
        .setInputFiles({ name: 'v.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
      await page.getByRole('status', { name: 'Import preview' }).waitFor();
      await expectNoAxeViolations(page, 'the CSV import’s preview');
      await check('/settings', 'Settings');
    });

    it('finds nothing on the admin screens: API clients, users, webhooks, integrations, apps, audit, two-step', async () => {
      await check('/api-clients', 'API clients');
      await check('/users', 'Users');
      await check('/webhooks', 'Webhooks');
      await check(`/webhooks/${ids.webhook}`, 'Ledger sync');
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
          await expectNoAxeViolations(signedOut, path);
        }
        // A refused sign-in, said in words.
        await signedOut.goto(`${base()}/sign-in`);
        await signInThroughForm(signedOut, { email: 'nobody@example.com', password: 'not the password at all' });
        await signedOut.getByRole('alert').waitFor();
        await expectNoAxeViolations(signedOut, 'a refused sign-in');
      } finally {
        await context.close();
      }
    });
  },
  { only: 'sqlite' },
);
