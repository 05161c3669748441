import type { BrowserContext, Page, Route } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '../../client/src/index.js';
import {
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signIn,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually } from '../support/console-story.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/**
 * The session answer as the server gave it, less `withheld` of its scopes. The server gives a session its role's
 * scopes today; the console must follow the scopes it is told, never the role's name, so that an answer whose
 * scopes differ from the role's (a role changed, scopes narrowed) is what the console offers.
 */
function withheldScopes(withheld: readonly string[]) {
  return async (route: Route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const response = await route.fetch();
    const body = await response.json();
    body.scopes = (body.scopes as string[]).filter((scope) => !withheld.includes(scope));
    await route.fulfill({ response, json: body });
  };
}

const navLinks = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();

eachDialectWith(
  'the console offers what the session’s scopes allow, and codes a record when the server says it may',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let api: SvcClient;
    let accountId: string;
    let fieldId: string;
    let recordId: string;
    const base = () => `${server().url}/console`;

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      fieldId = gl.svc_id;
      await api.fieldValues.create(gl.svc_id, [{ value: 'Travel', remote_id: '6100' }]);
      const records = await api.review.createRecords([
        {
          type: 'CARD_EXPENSE_POST',
          amount: { amount: 20, currency: 'USD' },
          posted_at: '2026-06-11T09:00:00Z',
          review_status: 'REVIEW',
          vendor: { id: 'v_taxi', name: 'Taxi Co' },
        },
      ]);
      recordId = records.items[0]!.id;
      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      const context = await newContext(browser());
      page = await signIn(context, base(), admin);
      opened = { context, page };
    });
    screenshotFailuresThenClose('scopes', () => opened);

    it('shows an admin whose session lacks scopes no control for them: the role’s name decides nothing', async () => {
      const everything = await navLinks(page);
      expect(everything).toEqual(expect.arrayContaining(['API clients', 'Users', 'Audit log', 'Webhooks']));
      await page.goto(`${base()}/fields`);
      await page.getByRole('heading', { level: 2, name: 'New field' }).waitFor();

      await page.route(
        '**/auth/session',
        withheldScopes(['account.admin', 'audit.read', 'webhooks.write', 'fields.write']),
      );
      try {
        await page.goto(`${base()}/fields`);
        await page.getByRole('heading', { level: 1, name: 'Fields' }).waitFor();
        // Still an account admin by role, as the header says; the scopes decide.
        await page.getByText('(Account admin)').waitFor();
        await eventually(() => navLinks(page)).toEqual(
          everything.filter(
            (name) => !['API clients', 'Users', 'Connected apps', 'Audit log', 'Webhooks'].includes(name),
          ),
        );
        await page.getByRole('link', { name: 'GL Account' }).waitFor();
        expect(await page.getByRole('heading', { name: 'New field' }).count()).toBe(0);
        // field_values.write kept: values can still be changed.
        await page.getByText('Open a field to search, add, change and import its values.').waitFor();
        await page.goto(`${base()}/fields/${encodeURIComponent(fieldId)}`);
        await page.getByRole('heading', { level: 1, name: 'GL Account' }).waitFor();
        expect(await page.getByRole('heading', { name: 'Field settings' }).count()).toBe(0);

        // A page opened by its address says so, and offers nothing of it.
        await page.goto(`${base()}/api-clients`);
        await page.getByText('Only an account admin manages the account’s API clients.').waitFor();
        expect(await page.getByRole('heading', { name: 'Clients of the account' }).count()).toBe(0);
      } finally {
        await page.unroute('**/auth/session');
      }
    });

    it('offers the coding form only when the record answer says the coding may change, with the server’s reason', async () => {
      await page.goto(`${base()}/records/${encodeURIComponent(recordId)}`);
      await page.getByRole('heading', { level: 1, name: 'Taxi Co, 20.00 USD' }).waitFor();
      const save = page.getByRole('button', { name: 'Save coding' });
      await save.waitFor();

      // The same record in REVIEW, the server saying no: the console repeats no rule of its own.
      const reason = 'Told by the server: not now.';
      await page.route(`**/internal/v1/accounting/records/${recordId}`, async (route) => {
        const response = await route.fetch();
        const body = await response.json();
        body.coding = { editable: false, reason_code: 'RECORD_NOT_EDITABLE', reason };
        await route.fulfill({ response, json: body });
      });
      try {
        await page.reload();
        await page.getByRole('heading', { level: 1, name: 'Taxi Co, 20.00 USD' }).waitFor();
        await page.getByText(reason).waitFor();
        expect(await save.count()).toBe(0);
        expect(await page.getByRole('heading', { name: 'Split and merge lines' }).count()).toBe(0);
      } finally {
        await page.unroute(`**/internal/v1/accounting/records/${recordId}`);
      }
    });
  },
  { only: 'sqlite' },
);
