import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { SvcClient } from '../../client/src/index.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import {
  checkScreen,
  eventually,
  newContext,
  screenshot,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

async function signIn(context: BrowserContext, base: string, user: { email: string; password: string }) {
  const page = await context.newPage();
  await page.goto(`${base}/sign-in`);
  await signInThroughForm(page, user);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return page;
}

/** The rows of the audit log table as a reader sees them: action, by, on. */
const shownEntries = (page: Page) =>
  page
    .getByRole('table', { name: 'Administrative actions on the account, newest first' })
    .getByRole('row')
    .evaluateAll((trs) =>
      trs.flatMap((tr) => {
        const cells = [...tr.querySelectorAll('th, td')].map((c) => (c as HTMLElement).innerText.trim());
        return tr.querySelector('td') ? [[cells[1], cells[2], cells[3]].join(' | ')] : [];
      }),
    );

// Browser suites exercise no dialect-specific code: SQLite alone (the API's audit tests run on both).
eachDialectWith(
  'console audit log in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let context: BrowserContext;
    let admin: Page;
    let api: SvcClient;
    let apiClientId: string;
    let accountId: string;
    const base = () => `${server().url}/console`;

    beforeAll(async () => {
      accountId = newAccountId();
      const creds = await authService.createClient(server().db, accountId, ['account.admin', 'fields.read']);
      apiClientId = creds.client_id;
      api = new SvcClient({ baseUrl: server().url, clientId: creds.client_id, clientSecret: creds.client_secret });
      context = await newContext(browser());
      admin = await signIn(context, base(), await newUser(server().db, 'ACCOUNT_ADMIN', accountId));
    });
    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && admin && !admin.isClosed()) {
        await screenshot(admin, `failed-audit-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });
    afterAll(async () => {
      await context?.close();
    });

    it('shows an admin every administrative action, newest first, and filters it by action', async () => {
      const made = await api.clients.create({ scopes: ['fields.read'] });
      await api.clients.revoke(made.client_id);
      await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
      await admin.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
      await eventually(() => shownEntries(admin)).toEqual([
        `Api client revoked | API client ${apiClientId} | Api client ${made.client_id}`,
        `Api client created | API client ${apiClientId} | Api client ${made.client_id}`,
        expect.stringMatching(/^User created \| Operator \(svc\) svc-cli \| User usr_/),
        `Api client created | Operator (svc) svc-cli | Api client ${apiClientId}`,
      ]);
      await checkScreen(admin, 'audit-log', dialect);

      await admin.getByLabel('Action').selectOption({ label: 'Api client revoked' });
      await admin.getByRole('button', { name: 'Show' }).click();
      await eventually(() => shownEntries(admin)).toEqual([
        `Api client revoked | API client ${apiClientId} | Api client ${made.client_id}`,
      ]);
    });

    it('offers a bookkeeper no audit log: no link, and the page says the role may not read it', async () => {
      const bookkeeperContext = await newContext(browser());
      try {
        const bookkeeper = await signIn(bookkeeperContext, base(), await newUser(server().db, 'BOOKKEEPER', accountId));
        const navigation = bookkeeper.getByRole('navigation', { name: 'Main' });
        expect(await navigation.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
        await bookkeeper.goto(`${base()}/audit`);
        await bookkeeper.getByText('The audit log could not be loaded.').waitFor();
        expect(await bookkeeper.getByRole('table').count()).toBe(0);
      } finally {
        await bookkeeperContext.close();
      }
    });
  },
  { only: 'sqlite' },
);
