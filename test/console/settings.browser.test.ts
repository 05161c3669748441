import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { checkScreen, eventually, newContext, sharedBrowser, signIn, startConsoleServer } from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/** The account's stored receipt rules and auto-submit, read directly. */
async function stored(db: Db, accountId: string) {
  const policy = await db.direct
    .selectFrom('account_receipt_policies')
    .select('rules_json')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  const review = await db.direct
    .selectFrom('account_review_settings')
    .select('auto_submit')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return {
    rules: policy ? JSON.parse(policy.rules_json) : null,
    autoSubmit: review ? Number(review.auto_submit) : null,
  };
}

const rule = (page: Page, n: number) => page.getByRole('group', { name: `Rule ${n}`, exact: true });

// Browser suites exercise no dialect-specific code: SQLite alone (the API's receipt policy tests run on both).
eachDialectWith(
  'console settings in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    it('an admin edits the receipt policy row by row, sees each refusal at its input, and saves the review settings', async () => {
      const accountId = newAccountId();
      const context: BrowserContext = await newContext(browser());
      try {
        const page = await signIn(
          context,
          `${server().url}/console`,
          await newUser(server().db, 'ACCOUNT_ADMIN', accountId),
        );
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
        await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
        await page.getByText('No receipt is required.').waitFor();
        expect(await page.getByLabel('Submit records coded by rules for review when they arrive').isChecked()).toBe(
          false,
        );

        // Two rules: USD above 75.50 for card expenses; JPY with a fraction of a yen, which JPY does not have.
        await page.getByRole('button', { name: 'Add a currency' }).click();
        await page.getByLabel('Currency, rule 1').fill('usd');
        await page.getByLabel('Receipt required above, rule 1').fill('75.5');
        await rule(page, 1).getByLabel('Card expense post').check();
        await page.getByRole('button', { name: 'Add a currency' }).click();
        await page.getByLabel('Currency, rule 2').fill('JPY');
        await page.getByLabel('Receipt required above, rule 2').fill('7500.5');
        await rule(page, 2).getByLabel('Reimbursement expense post').check();
        await page.getByRole('button', { name: 'Save receipt policy' }).click();
        const yen = page.getByLabel('Receipt required above, rule 2');
        await eventually(() => yen.getAttribute('aria-invalid')).toBe('true');
        await page.getByText('The amount must be a whole number for JPY.').waitFor();
        expect((await stored(server().db, accountId)).rules).toBeNull();

        // The server's refusal of an unknown currency, next to its input; nothing stored.
        await yen.fill('7500');
        await page.getByRole('button', { name: 'Add a currency' }).click();
        await page.getByLabel('Currency, rule 3').fill('XYZ');
        await page.getByLabel('Receipt required above, rule 3').fill('1');
        await rule(page, 3).getByLabel('Invoice', { exact: true }).check();
        await page.getByRole('button', { name: 'Save receipt policy' }).click();
        await page.getByText('Must be an ISO 4217 currency code.').waitFor();
        await eventually(() => page.getByLabel('Currency, rule 3').getAttribute('aria-invalid')).toBe('true');
        expect(await page.getByLabel('Receipt required above, rule 2').getAttribute('aria-invalid')).toBeNull();
        expect((await stored(server().db, accountId)).rules).toBeNull();

        await page.getByRole('button', { name: 'Remove rule 3' }).click();
        await page.getByRole('button', { name: 'Save receipt policy' }).click();
        await page.getByText('The receipt policy is saved.').waitFor();
        expect((await stored(server().db, accountId)).rules).toEqual([
          { currency: 'JPY', above_minor: 7500, record_types: ['REIMBURSEMENT_EXPENSE_POST'] },
          { currency: 'USD', above_minor: 7550, record_types: ['CARD_EXPENSE_POST'] },
        ]);
        // Shown as saved: by currency, in major units with the currency's decimals.
        expect(await page.getByLabel('Currency, rule 1').inputValue()).toBe('JPY');
        expect(await page.getByLabel('Receipt required above, rule 1').inputValue()).toBe('7500');
        expect(await page.getByLabel('Receipt required above, rule 2').inputValue()).toBe('75.50');

        await page.getByLabel('Submit records coded by rules for review when they arrive').check();
        await page.getByRole('button', { name: 'Save review settings' }).click();
        await page.getByText('The review settings are saved.').waitFor();
        expect((await stored(server().db, accountId)).autoSubmit).toBe(1);
        await checkScreen(page, 'settings', dialect);
      } finally {
        await context.close();
      }
    });

    it('shows a bookkeeper the settings read-only, and a read-only user none', async () => {
      const accountId = newAccountId();
      const admin = await server().apiClient(accountId, ['accounting.record.admin']);
      await admin.review.setReceiptPolicy({
        rules: [{ currency: 'USD', above_minor: 7500, record_types: ['CARD_EXPENSE_POST'] }],
      });
      const context = await newContext(browser());
      try {
        const page = await signIn(
          context,
          `${server().url}/console`,
          await newUser(server().db, 'BOOKKEEPER', accountId),
        );
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
        await page.getByText('Only account admins change these settings.').waitFor();
        expect(await page.getByLabel('Receipt required above, rule 1').inputValue()).toBe('75.00');
        expect(await page.getByLabel('Receipt required above, rule 1').getAttribute('readonly')).not.toBeNull();
        expect(await rule(page, 1).getByLabel('Card expense post').isDisabled()).toBe(true);
        expect(await page.getByLabel('Submit records coded by rules for review when they arrive').isDisabled()).toBe(
          true,
        );
        for (const name of ['Save receipt policy', 'Add a currency', 'Remove rule 1', 'Save review settings']) {
          expect(await page.getByRole('button', { name }).count()).toBe(0);
        }
      } finally {
        await context.close();
      }
      const readers = await newContext(browser());
      try {
        const page = await signIn(
          readers,
          `${server().url}/console`,
          await newUser(server().db, 'READ_ONLY', accountId),
        );
        expect(
          await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).count(),
        ).toBe(0);
        await page.goto(`${server().url}/console/settings`);
        await page.getByText('Only bookkeepers and account admins see the account’s settings.').waitFor();
      } finally {
        await readers.close();
      }
    });
  },
  { only: 'sqlite' },
);
