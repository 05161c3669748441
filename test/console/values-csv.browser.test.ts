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

/** Chooses the file, waits for its preview, imports its rows to send and waits for the result of every row. */
async function importFile(page: Page, name: string, text: string, rows: number): Promise<void> {
  await page.getByLabel('CSV file').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') });
  await page.getByRole('status', { name: 'Import preview' }).waitFor();
  await page.getByRole('button', { name: `Import ${rows} rows` }).click();
  await page.getByRole('status').filter({ hasText: 'Import finished' }).waitFor();
}

/** The cells of the body rows of the table with caption `name`. */
const rowsOf = (page: Page, name: string) =>
  page
    .getByRole('table', { name })
    .getByRole('row')
    .evaluateAll((trs) =>
      trs.flatMap((tr) => {
        const cells = [...tr.querySelectorAll('td')].map((td) => (td as HTMLElement).innerText.trim());
        return cells.length > 0 ? [cells] : [];
      }),
    );

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

      // The same rows again: each one exists, unchanged; nothing is left to send.
      await page.getByLabel('CSV file').setInputFiles({
        name: 'again.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(SPREADSHEET, 'utf8'),
      });
      await page.getByRole('status', { name: 'Import preview' }).filter({ hasText: '4 unchanged' }).waitFor();
      expect(await page.getByRole('button', { name: 'Import 0 rows' }).isDisabled()).toBe(true);
    });

    it('previews each row before writing, skips or updates existing values by remote_id, and gives a result per row: one refused row holds back no other', async () => {
      const field = await api.fields.create({ name: 'Office', group: 'ERP' });
      await api.fieldValues.create(field.svc_id, [
        { value: 'Berlin', remote_id: 'O-1' },
        { value: 'Paris', remote_id: 'O-2' },
      ]);
      await page.goto(`${server().url}/console/fields/${field.svc_id}`);
      await page.getByRole('heading', { level: 1, name: 'Office' }).waitFor();
      const file = [
        'value,remote_id,is_disabled',
        'Berlin,O-1,', // row 2: unchanged
        'Paris (HQ),O-2,', // row 3: differs from the stored "Paris": skipped, or updated
        'Lisbon,O-3,', // row 4: created
        'Oslo,O-4,maybe', // row 5: invalid (is_disabled)
        'Lisbon again,O-3,', // row 6: invalid (O-3 is on row 4)
        'Remote,,', // row 7: created, no remote_id
        '"",O-7,', // row 8: sent, and refused by the service (an empty value)
      ].join('\n');
      const choose = () =>
        page
          .getByLabel('CSV file')
          .setInputFiles({ name: 'offices.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });

      // Skip existing (the default): a preview, and nothing written yet.
      await choose();
      const preview = page.getByRole('status', { name: 'Import preview' });
      await preview.waitFor();
      expect(await preview.innerText()).toContain(
        '3 rows to create, 0 rows to update by remote_id, 1 unchanged, 1 skipped (they exist), 2 invalid',
      );
      expect(await rowsOf(page, 'Rows the import does not simply create')).toEqual([
        ['2', 'Unchanged', 'Berlin', ''],
        ['3', 'Skip (exists)', 'Paris (HQ)', 'remote_id “O-2” is already the value “Paris”: skipped.'],
        ['5', 'Invalid', '', 'is_disabled is “maybe”: write true or false (or leave it empty: false).'],
        ['6', 'Invalid', 'Lisbon again', 'remote_id “O-3” is also on row 4: it must be unique within the field.'],
      ]);
      expect(await values(api, field.svc_id)).toEqual([
        ['Berlin', 'O-1', false],
        ['Paris', 'O-2', false],
      ]);

      // Update by remote_id: the same file, the other choice.
      await page.getByLabel('Update existing values by remote_id').check();
      await preview.filter({ hasText: '3 rows to create, 1 row to update by remote_id' }).waitFor();
      await page.getByRole('button', { name: 'Import 4 rows' }).click();
      const result = page.getByRole('status').filter({ hasText: 'Import finished' });
      await result.waitFor();
      expect(await result.innerText()).toBe(
        'Import finished: 2 values created, 1 updated, 1 unchanged, 0 skipped, 2 invalid, 1 refused.',
      );
      const notDone = await rowsOf(page, 'Rows not created or updated, and why');
      expect(notDone.map(([row, what]) => [row, what])).toEqual([
        ['2', 'Unchanged'],
        ['5', 'Invalid'],
        ['6', 'Invalid'],
        ['8', 'Refused'],
      ]);
      expect(notDone[3]![2]).toMatch(/^value /);
      expect(await values(api, field.svc_id)).toEqual([
        ['Berlin', 'O-1', false],
        ['Paris (HQ)', 'O-2', false],
        ['Lisbon', 'O-3', false],
        ['Remote', null, false],
      ]);

      // The rows not stored, as a file to fix (the row the file could not read has nothing to write back).
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download the 2 rows not imported' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('rows-not-imported.csv');
      expect(fs.readFileSync(await download.path(), 'utf8')).toBe(
        'value,remote_id,value_id,is_disabled\r\nLisbon again,O-3,,\r\n,O-7,,\r\n',
      );
    });
  },
  { only: 'sqlite' },
);
