import type { Page } from 'playwright-core';
import { afterEach, expect, it } from 'vitest';
import { newContext, sharedBrowser, screenshot, signIn, startConsoleServer, textOf } from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/** Who meets the console's webhooks, and what an unknown endpoint's page says (the admin's walk: webhooks.browser). */
eachDialectWith(
  'console webhooks in a browser: roles and unknown endpoints',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let page: Page;

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
        await screenshot(page, `failed-webhooks-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });

    it('shows a bookkeeper no webhooks, and says an unknown endpoint does not exist', async () => {
      const accountId = newAccountId();
      const bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
      const other = await newContext(browser());
      try {
        page = await signIn(other, `${server().url}/console`, bookkeeper);
        const main = page.getByRole('navigation', { name: 'Main' });
        await expect(main.getByRole('link', { name: 'Webhooks' }).count()).resolves.toBe(0);
        await page.goto(`${server().url}/console/webhooks`);
        await page.getByText('Only an account admin manages the account’s webhooks.').waitFor();
      } finally {
        await other.close();
      }
      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      const admins = await newContext(browser());
      try {
        page = await signIn(admins, `${server().url}/console`, admin);
        await page.goto(`${server().url}/console/webhooks/whk_nope`);
        const alert = page.getByRole('alert');
        await alert.waitFor();
        expect(await textOf(alert)).toMatch(
          /^This webhook endpoint does not exist\.\nRequest id: \S+\nIt may have been deleted\. See the account’s endpoints\.$/,
        );
      } finally {
        await admins.close();
      }
    });
  },
  { only: 'sqlite' },
);
