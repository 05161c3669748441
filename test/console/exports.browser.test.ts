import fs from 'node:fs';
import type { BrowserContext, Download, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { AccountingRecord, RecordCreate, SvcClient } from '../../client/src/index.js';
import {
  checkScreen,
  eventually,
  newContext,
  screenshot,
  sharedBrowser,
  signIn,
  startConsoleServer,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { CEILING_MS } from '../support/wait.js';

const browser = sharedBrowser();

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const FILE_NAME = (extension: string) => new RegExp(`^svc-export-\\d{4}-\\d{2}-\\d{2}\\.${extension}$`);

/** Clicks Download and answers the file the browser saved: its name and its text. */
async function download(page: Page): Promise<{ name: string; text: string }> {
  const saved: Promise<Download> = page.waitForEvent('download');
  await page.getByRole('form', { name: 'Export' }).getByRole('button', { name: 'Download' }).click();
  const file = await saved;
  const at = await file.path();
  return { name: file.suggestedFilename(), text: fs.readFileSync(at, 'utf8') };
}

eachDialectWith(
  'console export page in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let accountId: string;
    let api: SvcClient;
    let context: BrowserContext;
    let page: Page;
    const r: Record<string, AccountingRecord> = {};
    const base = () => `${server().url}/console`;

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = (await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL_ACCOUNT' })).svc_id;
      const department = (await api.fields.create({ name: 'Department', group: 'ACCOUNTING' })).svc_id;
      const [meals, travel] = (await api.fieldValues.create(gl, [{ value: '6010 Meals' }, { value: '6100 Travel' }]))
        .items;
      const [sales] = (await api.fieldValues.create(department, [{ value: 'Sales' }])).items;
      const ready = (
        vendor: string,
        amount: number,
        day: string,
        lines: RecordCreate['lines'],
        extra: Partial<RecordCreate> = {},
      ): RecordCreate => ({
        type: 'CARD_EXPENSE_POST',
        amount: { amount, currency: 'USD' },
        posted_at: `${day}T09:00:00Z`,
        erp_posting_date: `${day}T09:00:00Z`,
        review_status: 'READY_FOR_EXPORT',
        vendor: { id: `v_${vendor.replaceAll(' ', '_')}`, name: vendor },
        lines,
        ...extra,
      });
      const line = (amount: number, ...values: { svc_id: string; field_id: string }[]) => [
        {
          amount: { amount, currency: 'USD' },
          field_values: values.map((v) => ({ field_id: v.field_id, svc_id: v.svc_id })),
        },
      ];
      const mealsValue = { field_id: gl, svc_id: meals!.svc_id };
      const travelValue = { field_id: gl, svc_id: travel!.svc_id };
      const salesValue = { field_id: department, svc_id: sales!.svc_id };
      const created = await api.review.createRecords([
        ready('Blue Bottle', 12.5, '2026-06-11', line(12.5, mealsValue, salesValue)),
        ready('Acme Travel', 240, '2026-06-20', line(240, travelValue)),
        ready('Uncoded Cafe', 8, '2026-06-21', line(8)),
        ready('Under Review', 30, '2026-06-22', line(30, mealsValue), { review_status: 'REVIEW' }),
      ]);
      const [bottle, acme, uncoded, review] = created.items;
      Object.assign(r, { bottle: bottle!, acme: acme!, uncoded: uncoded!, review: review! });

      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      context = await newContext(browser(), { acceptDownloads: true });
      page = await signIn(context, base(), admin);
    });

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
        await screenshot(page, `failed-exports-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });

    afterAll(async () => {
      await context?.close();
    });

    it(
      'downloads the chosen records as CSV with chosen columns, under the server’s file name; then a date range as a journal',
      { timeout: 4 * CEILING_MS },
      async () => {
        await nav(page).getByRole('link', { name: 'Export' }).click();
        await page.getByRole('heading', { level: 1, name: 'Export' }).waitFor();
        const form = page.getByRole('form', { name: 'Export' });
        await form.getByLabel('Format').selectOption('csv');
        await form.getByRole('checkbox', { name: 'Record type' }).check();
        await form.getByRole('checkbox', { name: 'Memo' }).uncheck();
        await form.getByLabel('Dimension columns').fill('department');
        await form.getByRole('radio', { name: 'These records' }).check();
        await form.getByLabel('Record ids').fill(`${r.bottle!.id}\n${r.acme!.id}`);
        await checkScreen(page, 'exports', dialect);

        const csv = await download(page);
        const columns = [
          'reference',
          'date',
          'type',
          'payee',
          'narration',
          'account_code',
          'account_name',
          'debit',
          'credit',
          'currency',
          'dimension:department',
        ];
        const expected = await api.accountingRecords.exportDownload({
          format: 'csv',
          accounting_record_ids: [r.bottle!.id, r.acme!.id],
          columns,
        });
        expect(csv.name).toMatch(FILE_NAME('csv'));
        expect(csv.name).toBe(expected.file_name);
        expect(csv.text).toBe(expected.text);
        expect(csv.text.split('\r\n')[0]).toBe(columns.join(','));
        for (const id of [r.bottle!.id, r.acme!.id]) expect(csv.text).toContain(id);
        expect(csv.text).toContain('Sales');
        await page
          .getByRole('status')
          .filter({ hasText: `Downloaded ${csv.name}: 2 records.` })
          .waitFor();

        // By ERP posting date: only the record posted in the range, as an hledger journal.
        await form.getByLabel('Format').selectOption('hledger');
        await eventually(() => form.getByRole('group', { name: 'Columns' }).count()).toBe(0);
        await form.getByRole('radio', { name: 'Records ready for export, by ERP posting date' }).check();
        await form.getByLabel('Posted from').fill('2026-06-10');
        await form.getByLabel('Posted to').fill('2026-06-12');
        const journal = await download(page);
        expect(journal.name).toMatch(FILE_NAME('journal'));
        expect(journal.text).toBe(
          await api.accountingRecords.exportFile({
            format: 'hledger',
            posted_from: '2026-06-10',
            posted_to: '2026-06-12',
          }),
        );
        expect(journal.text).toContain(r.bottle!.id);
        expect(journal.text).not.toContain(r.acme!.id);
        await page
          .getByRole('status')
          .filter({ hasText: `Downloaded ${journal.name}: 1 record.` })
          .waitFor();

        // A last day before the first is said next to the dates; nothing is asked of the service.
        await form.getByLabel('Posted to').fill('2026-06-01');
        let asked = 0;
        const count = () => asked++;
        page.on('request', count);
        await form.getByRole('button', { name: 'Download' }).click();
        await form.getByText('The last day must be on or after the first.').waitFor();
        await expect(form.getByLabel('Posted to').getAttribute('aria-invalid')).resolves.toBe('true');
        page.off('request', count);
        expect(asked).toBe(0);
      },
    );

    it(
      'names each refused record in words with a link to it; downloads the rest without them; nothing changes',
      { timeout: 4 * CEILING_MS },
      async () => {
        await page.goto(`${base()}/exports`);
        const form = page.getByRole('form', { name: 'Export' });
        await form.getByLabel('Format').selectOption('beancount');
        await form.getByRole('radio', { name: 'These records' }).check();
        await form.getByLabel('Record ids').fill([r.bottle!.id, r.uncoded!.id, r.review!.id].join(', '));
        const answer = page.waitForResponse((res) => res.url().endsWith('/internal/v1/accounting/exports'));
        await form.getByRole('button', { name: 'Download' }).click();
        expect((await answer).status()).toBe(422);
        const refusal = page.getByRole('alert');
        await refusal.waitFor();
        const uncodedLine = r.uncoded!.line_items.find((l) => l.type !== r.uncoded!.balancing_line_type)!;
        expect(await textOf(refusal)).toBe(
          [
            'Nothing was exported: 2 records cannot be exported.',
            `${r.uncoded!.id}: line 1 (${uncodedLine.id}) has no GL account.`,
            `${r.review!.id}: it is at Review, not Ready for export.`,
            'Open a record to code or approve it, then download again.',
            'Download without these records',
          ].join('\n'),
        );
        const links = refusal.getByRole('list', { name: 'Records that cannot be exported' }).getByRole('link');
        await expect(links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).resolves.toEqual([
          `/console/records/${encodeURIComponent(r.uncoded!.id)}`,
          `/console/records/${encodeURIComponent(r.review!.id)}`,
        ]);
        await checkScreen(page, 'exports-refused', dialect);

        const rest = page.waitForEvent('download');
        await refusal.getByRole('button', { name: 'Download without these records' }).click();
        const file = await rest;
        const text = fs.readFileSync(await file.path(), 'utf8');
        expect(file.suggestedFilename()).toMatch(FILE_NAME('beancount'));
        expect(text).toContain(r.bottle!.id);
        expect(text).not.toContain(r.uncoded!.id);
        expect(text).not.toContain(r.review!.id);
        await page.getByRole('status').filter({ hasText: 'Downloaded' }).waitFor();
        await eventually(() => page.getByRole('alert').count()).toBe(0);

        // The refused record's link opens its page; no record changed state.
        await page.goto(`${base()}/exports`);
        await form.getByRole('radio', { name: 'These records' }).check();
        await form.getByLabel('Record ids').fill(r.review!.id);
        await form.getByRole('button', { name: 'Download' }).click();
        await page.getByRole('alert').getByRole('link', { name: r.review!.id }).click();
        await page.getByRole('heading', { level: 1, name: 'Under Review, 30.00 USD' }).waitFor();
        const states = await Promise.all(
          [r.bottle!, r.uncoded!, r.review!].map(async (x) => (await api.accountingRecords.get(x.id)).review_status),
        );
        expect(states).toEqual(['READY_FOR_EXPORT', 'READY_FOR_EXPORT', 'REVIEW']);
      },
    );

    it('lets a read-only user export: the link, the page and the file', { timeout: 4 * CEILING_MS }, async () => {
      const reader = await newUser(server().db, 'READ_ONLY', accountId);
      const theirs = await newContext(browser(), { acceptDownloads: true });
      try {
        const other = await signIn(theirs, base(), reader);
        await nav(other).getByRole('link', { name: 'Export' }).click();
        await other.getByRole('heading', { level: 1, name: 'Export' }).waitFor();
        const form = other.getByRole('form', { name: 'Export' });
        await form.getByLabel('Format').selectOption('quickbooks');
        await form.getByRole('radio', { name: 'These records' }).check();
        await form.getByLabel('Record ids').fill(r.acme!.id);
        const file = await download(other);
        expect(file.name).toMatch(FILE_NAME('csv'));
        expect(file.text).toContain(r.acme!.id);
      } finally {
        await theirs.close();
      }
    });
  },
  { only: 'sqlite' },
);
