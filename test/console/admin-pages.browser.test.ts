import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '../../client/src/index.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import { vendorsService } from '../../src/modules/integrations/vendors.service.js';
import {
  API_SCOPES,
  eventually,
  newContext,
  screenshot,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/** The admin pages of issue 31 (item 8): API clients' names and last use, vendors' names, a refused URL in words. */
eachDialectWith(
  "the console's admin pages, in a browser",
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;
    let api: SvcClient;
    let accountId: string;

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId, [...API_SCOPES, 'accounting.integration.write', 'webhooks.read']);
      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      context = await newContext(browser());
      page = await context.newPage();
      await page.goto(`${server().url}/console/sign-in`);
      await signInThroughForm(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
        await screenshot(page, `failed-admin-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });

    afterAll(async () => {
      await context?.close();
    });

    it('names API clients, shows when each last got a token, and renames one', async () => {
      const used = await authService.createClient(server().db, accountId, ['fields.read'], undefined, 'Nightly sync');
      const token = await fetch(`${server().url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: used.client_id,
          client_secret: used.client_secret,
        }),
      });
      expect(token.status).toBe(200);

      await page.goto(`${server().url}/console/api-clients`);
      const table = page.getByRole('table', { name: 'API clients of the account' });
      const usedRow = table.getByRole('row').filter({ hasText: used.client_id });
      await usedRow.waitFor();
      // Name, id, scopes, created, last used (a date, not "Never"), state.
      expect(await textOf(usedRow.getByRole('rowheader'))).toBe('Nightly sync');
      expect(await textOf(usedRow.getByRole('cell').nth(3))).toMatch(/\d/);
      expect(await textOf(usedRow.getByRole('cell').nth(3))).not.toBe('Never');

      // A client made in the form, with a name; never used yet.
      await page.getByLabel('Name (optional)').fill('  Payroll export  ');
      await page.getByRole('checkbox', { name: /^fields\.read / }).check();
      const created = page.waitForResponse(
        (res) => res.url().endsWith('/internal/v1/clients') && res.request().method() === 'POST',
      );
      await page.getByRole('button', { name: 'Create API client' }).click();
      const made = await (await created).json();
      expect(made.name).toBe('Payroll export');
      await page.getByRole('button', { name: 'Done' }).click();
      const madeRow = table.getByRole('row').filter({ hasText: made.client_id });
      await madeRow.waitFor();
      expect(await textOf(madeRow.getByRole('rowheader'))).toBe('Payroll export');
      expect(await textOf(madeRow.getByRole('cell').nth(3))).toBe('Never');

      await page.getByRole('button', { name: `Rename ${used.client_id}` }).click();
      const form = page.getByRole('form', { name: `Name of ${used.client_id}` });
      await form.getByLabel('Name').fill('ERP nightly sync');
      await form.getByRole('button', { name: 'Save name' }).click();
      await eventually(() => textOf(usedRow.getByRole('rowheader'))).toBe('ERP nightly sync');
      const listed = await server()
        .db.direct.selectFrom('oauth_clients')
        .select('name')
        .where('client_id', '=', used.client_id)
        .executeTakeFirstOrThrow();
      expect(listed.name).toBe('ERP nightly sync');
    });

    it("shows an integration's vendor by its name", async () => {
      const vendor = `ERP_${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
      await vendorsService.create(server().db, { vendor, name: 'Acme Ledger' });
      await api.integrations.create({ vendor, vendor_account_id: 'acme-1' });
      await page.goto(`${server().url}/console/integrations`);
      const row = page.getByRole('row').filter({ hasText: 'acme-1' });
      await row.waitFor();
      expect(await textOf(row.getByRole('rowheader'))).toBe(`Acme Ledger (${vendor})`);
      await row.getByRole('button', { name: 'Disconnect Acme Ledger' }).waitFor();
    });

    it('says in plain words, next to the URL, why a webhook URL is refused', async () => {
      await page.goto(`${server().url}/console/webhooks`);
      const url = page.getByLabel('Endpoint URL');
      await url.fill('https://10.1.2.3/hook');
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.getByRole('alert').filter({ hasText: 'The endpoint was not created.' }).waitFor();
      const words =
        '10.1.2.3 is on a private network. Events are only sent to addresses reachable on the public internet.';
      await eventually(() => url.getAttribute('aria-invalid')).toBe('true');
      const described = await url.evaluate((input) =>
        (input.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent)
          .join(' | '),
      );
      expect(described).toContain(words);
      // The service's own message (with its setting's name) is not what the admin reads.
      expect(await page.getByText('WEBHOOK_ALLOW_PRIVATE_TARGETS').count()).toBe(0);

      await url.fill('erp.example.com/hook');
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page
        .getByText('This is not a complete web address. Write it in full, starting with https://', { exact: false })
        .waitFor();
      expect(await api.webhooks.list()).toMatchObject({ items: [] });
    });
  },
  { only: 'sqlite' },
);
