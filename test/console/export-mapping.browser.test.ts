import fs from 'node:fs';
import type { BrowserContext, Download, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { AccountingRecord, SvcClient } from '../../client/src/index.js';
import { checkScreen, newContext, screenshot, sharedBrowser, signIn, startConsoleServer } from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { CEILING_MS } from '../support/wait.js';

const browser = sharedBrowser();

/** The Export page's mapping section (docs/exports.md, "The stored mapping"). */
eachDialectWith(
  'console export mapping in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let accountId: string;
    let api: SvcClient;
    let context: BrowserContext;
    let page: Page;
    let record: AccountingRecord;
    let department: string;
    const base = () => `${server().url}/console`;
    const mappingForm = (p: Page) => p.getByRole('form', { name: 'Mapping' });

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = (await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL_ACCOUNT' })).svc_id;
      department = (await api.fields.create({ name: 'Department', group: 'ACCOUNTING' })).svc_id;
      const [meals] = (await api.fieldValues.create(gl, [{ value: '6010 Meals' }])).items;
      const [sales] = (await api.fieldValues.create(department, [{ value: 'Sales' }])).items;
      const created = await api.review.createRecords([
        {
          type: 'CARD_EXPENSE_POST',
          amount: { amount: 12.5, currency: 'USD' },
          posted_at: '2026-06-11T09:00:00Z',
          erp_posting_date: '2026-06-11T09:00:00Z',
          review_status: 'READY_FOR_EXPORT',
          vendor: { id: 'v_blue', name: 'Blue Bottle' },
          lines: [
            {
              amount: { amount: 12.5, currency: 'USD' },
              field_values: [
                { field_id: gl, svc_id: meals!.svc_id },
                { field_id: department, svc_id: sales!.svc_id },
              ],
            },
          ],
        },
      ]);
      record = created.items[0]!;
      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      context = await newContext(browser(), { acceptDownloads: true });
      page = await signIn(context, base(), admin);
    });

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail') await screenshot(page, `export-mapping-failed-${dialect}`);
    });

    afterAll(async () => {
      await context?.close();
    });

    it(
      'an admin sees the defaults, is told which member is wrong (nothing saved), then saves a mapping the next file books with',
      { timeout: 4 * CEILING_MS },
      async () => {
        await page.goto(`${base()}/exports`);
        const form = mappingForm(page);
        const card = form.getByLabel('Card liability');
        await expect.poll(() => card.inputValue(), { timeout: CEILING_MS }).toBe('Liabilities:Card');
        expect(await form.getByLabel('GL account field').inputValue()).toBe('');

        await card.fill('Cards:Amex');
        await form.getByRole('button', { name: 'Save mapping' }).click();
        await form.getByText(/^must match the pattern/).waitFor();
        expect(await card.getAttribute('aria-invalid')).toBe('true');
        expect(await card.getAttribute('aria-describedby')).toMatch(/-error$/);
        expect((await api.accountingRecords.exportMapping()).updated_at).toBeNull();

        await card.fill('Liabilities:800-Card');
        await form.getByLabel('Class (QuickBooks Online and NetSuite)').selectOption({ label: 'Department' });
        await form.getByLabel('Xero tracking category 1').selectOption({ label: 'Department' });
        expect(await form.getByLabel('Home currency').inputValue()).toBe('USD');
        await form.getByLabel('The QuickBooks Online company has Multicurrency on').check();
        await form.getByRole('button', { name: 'Save mapping' }).click();
        await form.getByRole('status').filter({ hasText: 'The mapping is saved.' }).waitFor();
        const stored = await api.accountingRecords.exportMapping();
        expect(stored.balancing_accounts.CARD_LIABILITY).toBe('Liabilities:800-Card');
        expect(stored.dimension_fields).toEqual({ department: null, class: department, location: null });
        expect(stored.tracking_fields).toEqual([department]);
        expect([stored.home_currency, stored.quickbooks_multicurrency]).toEqual(['USD', true]);
        await checkScreen(page, 'export-mapping', dialect);

        // Kept: the page shows it again, and Xero's file takes the card account's code with no more said.
        await page.reload();
        await expect
          .poll(() => mappingForm(page).getByLabel('Card liability').inputValue(), { timeout: CEILING_MS })
          .toBe('Liabilities:800-Card');
        const exportForm = page.getByRole('form', { name: 'Export' });
        await exportForm.getByLabel('Format').selectOption('xero');
        const saved: Promise<Download> = page.waitForEvent('download');
        await exportForm.getByRole('button', { name: 'Download' }).click();
        const text = fs.readFileSync(await (await saved).path(), 'utf8');
        expect(text.split('\r\n').slice(1, 3)).toEqual([
          `${record.id} Blue Bottle,11/06/2026,CARD_EXPENSE_POST,6010,Tax Exempt,12.50,Department,Sales,,`,
          `${record.id} Blue Bottle,11/06/2026,CARD_EXPENSE_POST,800,Tax Exempt,-12.50,,,,`,
        ]);
      },
    );

    it('a read-only user sees the mapping but cannot change it', { timeout: 4 * CEILING_MS }, async () => {
      const reader = await newUser(server().db, 'READ_ONLY', accountId);
      const theirs = await newContext(browser());
      try {
        const other = await signIn(theirs, base(), reader);
        await other.goto(`${base()}/exports`);
        const form = mappingForm(other);
        await form.getByText('Only account admins change it.', { exact: false }).waitFor();
        expect(await form.getByLabel('Card liability').isDisabled()).toBe(true);
        expect(await form.getByLabel('Xero tracking category 1').isDisabled()).toBe(true);
        expect(await form.getByRole('button', { name: 'Save mapping' }).count()).toBe(0);
      } finally {
        await theirs.close();
      }
    });
  },
  { only: 'sqlite' },
);
