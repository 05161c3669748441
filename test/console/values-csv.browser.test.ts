import fs from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FieldValue, SvcClient } from '../../client/src/index.js';
import { API_SCOPES, newContext, sharedBrowser, signInThroughForm, startConsoleServer } from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/** A spreadsheet's "CSV UTF-8": a byte order mark, CRLF between rows, LF inside a quoted cell. */
const SPREADSHEET = [
  '\uFEFFvalue,remote_id,is_disabled\r\n',
  '"Travel, domestic",D-1,\r\n',
  '"Say ""hi""",D-2,false\r\n',
  '"Two\nlines, ""quoted""",D-3,true\r\n',
  ' Spaces kept ,D-4,\r\n',
].join('');

const values = async (api: SvcClient, fieldId: string) =>
  (await api.fieldValues.list(fieldId, { limit: 100 })).items.map((v: FieldValue) => [
    v.value,
    v.remote_id,
    v.is_disabled,
  ]);

async function importFile(page: Page, name: string, text: string, rows: number): Promise<void> {
  await page.getByLabel('CSV file').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });
  await page.getByRole('button', { name: `Import ${rows} values` }).click();
  await page.getByRole('status').filter({ hasText: 'Import finished' }).waitFor();
}

eachDialectWith(
  "the console's CSV import and export, in a browser",
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let context: BrowserContext;
    let page: Page;
    let api: SvcClient;

    beforeAll(async () => {
      const accountId = newAccountId();
      api = await server().apiClient(accountId, [...API_SCOPES]);
      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      context = await newContext(browser(), { acceptDownloads: true });
      page = await context.newPage();
      await page.goto(`${server().url}/console/sign-in`);
      await signInThroughForm(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });

    afterAll(async () => {
      await context?.close();
    });

    it('imports quoted cells with commas, doubled quotes and line breaks from a file with a byte order mark, and writes refused rows back as it read them', async () => {
      const field = await api.fields.create({ name: 'Department', group: 'ERP' });
      await page.goto(`${server().url}/console/fields/${field.svc_id}`);
      await page.getByRole('heading', { level: 1, name: 'Department' }).waitFor();

      await importFile(page, 'departments.csv', SPREADSHEET, 4);
      await expect(values(api, field.svc_id)).resolves.toEqual([
        ['Travel, domestic', 'D-1', false],
        ['Say "hi"', 'D-2', false],
        ['Two\nlines, "quoted"', 'D-3', true],
        [' Spaces kept ', 'D-4', false],
      ]);

      // The same rows again: D-1 is taken, so the batch is refused whole and offered back as a file.
      await importFile(page, 'again.csv', SPREADSHEET, 4);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download the 4 rows of the refused batches' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('refused-rows.csv');
      const written = fs.readFileSync(await download.path(), 'utf8');
      expect(written).toBe(
        [
          'value,remote_id,value_id,is_disabled\r\n',
          '"Travel, domestic",D-1,,\r\n',
          '"Say ""hi""",D-2,,\r\n',
          '"Two\nlines, ""quoted""",D-3,,true\r\n',
          '" Spaces kept ",D-4,,\r\n',
        ].join(''),
      );
      // Read back, the download is the import's own file.
      await importFile(page, 'refused-rows.csv', written, 4);
      await page.getByRole('link', { name: 'Download the 4 rows of the refused batches' }).waitFor();
      expect(await values(api, field.svc_id)).toHaveLength(4);
    });
  },
  { only: 'sqlite' },
);
