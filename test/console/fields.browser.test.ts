import type { Page, Request } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { Field, SvcClient } from '../../client/src/index.js';
import { checkScreen, sharedBrowser, startConsoleServer, textOf } from '../support/browser.js';
import { allValues, eventually, fieldsConsole, shownValues } from '../support/console-fields.js';
import { eachDialectWith } from '../support/dialects.js';
import { errorBody } from '../support/expect.js';

const browser = sharedBrowser();

/** A CSV file for the import's file input. */
const csvFile = (name: string, lines: string[]) => ({
  name,
  mimeType: 'text/csv',
  buffer: Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8'),
});

eachDialectWith(
  'console fields and API clients in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    const admin = fieldsConsole(server, dialect, browser);
    const { base, nav } = admin;
    let page: Page;
    let api: SvcClient;
    let field: Field;
    beforeAll(() => {
      ({ page, api } = admin.opened());
    });

    it('creates a field, then adds, renames, disables, enables and deletes a value; a clash is said in words', async () => {
      await nav('Fields').click();
      await page.getByRole('heading', { level: 1, name: 'Fields' }).waitFor();
      await page.getByText('The account has no custom fields yet.').waitFor();
      await checkScreen(page, 'fields-empty', dialect);

      await page.getByLabel('Field name').fill('Cost center');
      await page.getByLabel('Group').selectOption({ label: 'Accounting' });
      await page.getByRole('button', { name: 'Create field' }).click();
      await page.getByRole('heading', { level: 1, name: 'Cost center' }).waitFor();
      const fields = await api.fields.list();
      expect(fields.items.map((f) => [f.name, f.group, f.is_disabled])).toEqual([['Cost center', 'ACCOUNTING', false]]);
      field = fields.items[0]!;
      expect(page.url()).toBe(`${base()}/fields/${field.svc_id}`);
      await page.getByText('Cost center has no values yet.').waitFor();

      // Add
      await page.getByLabel('Value', { exact: true }).fill('Marketing');
      await page.getByLabel('Remote id (optional)').fill('CC-100');
      await page.getByRole('button', { name: 'Add value' }).click();
      await page.getByRole('status').filter({ hasText: 'Added “Marketing” to Cost center.' }).waitFor();
      await eventually(() => shownValues(page, 'Cost center')).toEqual(['Marketing']);
      let [stored] = await allValues(api, field.svc_id);
      expect(stored).toMatchObject({ value: 'Marketing', remote_id: 'CC-100', value_id: null, is_disabled: false });

      // The same remote_id again: the service's CONFLICT, in words, with its request id; nothing added.
      const clash = page.waitForResponse((res) => res.url().endsWith('/values') && res.request().method() === 'POST');
      await page.getByLabel('Value', { exact: true }).fill('Marketing again');
      await page.getByLabel('Remote id (optional)').fill('CC-100');
      await page.getByRole('button', { name: 'Add value' }).click();
      const refused = await (await clash).json();
      expect(refused.error_code).toBe('CONFLICT');
      await eventually(() => textOf(page.getByRole('alert'))).toBe(
        `The value was not added.\n${refused.message}\nRequest id: ${refused.request_id}`,
      );
      expect(await allValues(api, field.svc_id)).toHaveLength(1);
      await checkScreen(page, 'field-value-refused', dialect);

      // Rename in place
      await page.getByRole('button', { name: 'Edit “Marketing”' }).click();
      const text = page.getByLabel('New text of “Marketing”');
      await text.fill('Marketing EMEA');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Renamed “Marketing” to “Marketing EMEA”.' }).waitFor();
      await eventually(() => shownValues(page, 'Cost center')).toEqual(['Marketing EMEA']);
      [stored] = await allValues(api, field.svc_id);
      expect(stored).toMatchObject({ value: 'Marketing EMEA', remote_id: 'CC-100' });

      // Disable, enable
      await page.getByRole('button', { name: 'Disable “Marketing EMEA”' }).click();
      await page.getByRole('status').filter({ hasText: 'Disabled “Marketing EMEA”.' }).waitFor();
      await page.getByRole('button', { name: 'Enable “Marketing EMEA”' }).waitFor();
      expect((await allValues(api, field.svc_id))[0]!.is_disabled).toBe(true);
      await checkScreen(page, 'field', dialect);
      await page.getByRole('button', { name: 'Enable “Marketing EMEA”' }).click();
      await page.getByRole('button', { name: 'Disable “Marketing EMEA”' }).waitFor();
      expect((await allValues(api, field.svc_id))[0]!.is_disabled).toBe(false);

      // Delete, after a confirmation on the row
      await page.getByRole('button', { name: 'Delete “Marketing EMEA”' }).click();
      await page.getByRole('button', { name: 'Yes, delete “Marketing EMEA”' }).click();
      await page.getByRole('status').filter({ hasText: 'Deleted “Marketing EMEA”.' }).waitFor();
      await page.getByText('Cost center has no values yet.').waitFor();
      expect(await allValues(api, field.svc_id)).toEqual([]);
    });

    it('imports 2,500 values from a CSV in batches of at most 1000, one Idempotency-Key each; the progress reaches 100% and the values are in the API', async () => {
      await page.goto(`${base()}/fields/${field.svc_id}`);
      await page.getByRole('heading', { level: 1, name: 'Cost center' }).waitFor();
      const rows = Array.from({ length: 2500 }, (_, i) => {
        const n = String(i + 1).padStart(4, '0');
        return `"Center ${n}, ""main""",CC-${n},,${i % 10 === 9 ? 'true' : ''}`;
      });
      const sent: { key: string | null; items: number }[] = [];
      const onRequest = (req: Request) => {
        if (req.method() === 'POST' && req.url().endsWith(`/v1/fields/${field.svc_id}/values`)) {
          sent.push({ key: req.headers()['idempotency-key'] ?? null, items: req.postDataJSON().items.length });
        }
      };
      page.on('request', onRequest);
      try {
        await page
          .getByLabel('CSV file')
          .setInputFiles(csvFile('centers.csv', ['value,remote_id,value_id,is_disabled', ...rows]));
        await page
          .getByRole('status')
          .filter({ hasText: 'centers.csv: 2,500 values for Cost center, in 3 batches.' })
          .waitFor();
        await page.getByRole('button', { name: 'Import 2,500 values' }).click();
        const bar = page.getByRole('progressbar', { name: 'Import progress' });
        await bar.waitFor();
        await eventually(() => bar.getAttribute('aria-valuenow')).toBe('100');
        await expect(bar.getAttribute('aria-valuetext')).resolves.toBe('2,500 of 2,500 rows sent (100%)');
        await page
          .getByRole('status')
          .filter({ hasText: 'Import finished: 2,500 values created of 2,500 rows.' })
          .waitFor();
      } finally {
        page.off('request', onRequest);
      }
      expect(sent.map((s) => s.items)).toEqual([1000, 1000, 500]);
      expect(new Set(sent.map((s) => s.key)).size).toBe(3);
      expect(sent.every((s) => s.key !== null)).toBe(true);

      const stored = await allValues(api, field.svc_id);
      expect(stored).toHaveLength(2500);
      expect(stored[0]).toMatchObject({
        value: 'Center 0001, "main"',
        remote_id: 'CC-0001',
        value_id: null,
        is_disabled: false,
      });
      expect(stored[9]).toMatchObject({ remote_id: 'CC-0010', is_disabled: true });
      expect(stored.map((v) => v.remote_id)).toEqual(rows.map((_, i) => `CC-${String(i + 1).padStart(4, '0')}`));
      await checkScreen(page, 'field-import', dialect);

      // The value search: the table shows the API's search answer.
      await page.getByLabel('Search values', { exact: true }).fill('center 124');
      const expected = await api.review.searchFieldValues(field.svc_id, {
        q: 'center 124',
        limit: 100,
        include_disabled: true,
      });
      expect(expected.items.map((v) => v.remote_id)).toEqual(Array.from({ length: 10 }, (_, i) => `CC-124${i}`));
      await eventually(() => shownValues(page, 'Cost center')).toEqual(expected.items.map((v) => v.value));
      await page.getByRole('status').filter({ hasText: '10 values matching “center 124”.' }).waitFor();
      await page.getByLabel('Search values', { exact: true }).fill('no such center');
      await page.getByText('No value of Cost center matches “no such center”.').waitFor();
      await page.getByLabel('Search values', { exact: true }).fill('');

      // Pages of 50 in creation order.
      await eventually(() => shownValues(page, 'Cost center')).toEqual(stored.slice(0, 50).map((v) => v.value));
      await page.getByRole('button', { name: 'Next page' }).click();
      await eventually(() => shownValues(page, 'Cost center')).toEqual(stored.slice(50, 100).map((v) => v.value));
    });

    it("reports a CSV's refused rows with their row numbers and the service's reasons; a refused batch stores nothing, the others are stored", async () => {
      const other = await api.fields.create({ name: 'Project', group: 'ERP' });
      await api.fieldValues.create(other.svc_id, [{ value: 'Existing', remote_id: 'P-TAKEN' }]);
      await page.goto(`${base()}/fields/${other.svc_id}`);
      await page.getByRole('heading', { level: 1, name: 'Project' }).waitFor();

      // A file whose shape is wrong is refused before anything is sent.
      await page.getByLabel('CSV file').setInputFiles(csvFile('wrong.csv', ['name,code', 'Apollo,P-1']));
      await eventually(() => textOf(page.getByRole('alert'))).toBe(
        'wrong.csv cannot be imported; nothing was sent.\n' +
          'Row 1: Unknown column “name”, “code”: the columns are value, remote_id, value_id, is_disabled.\n' +
          'Row 1: The header has no “value” column.\n' +
          'Fix the file and choose it again.',
      );

      // 2,100 rows: batch 1 (rows 2–1001) is fine; batch 2 (rows 1002–2001) has an empty value on row 1501;
      // batch 3 (rows 2002–2101) takes a remote_id already stored, on row 2052, and repeats one of its own.
      const rows = Array.from({ length: 2100 }, (_, i) => [`Project ${i + 1}`, `P-${i + 1}`]);
      rows[1499]![0] = '';
      rows[2050]![1] = 'P-TAKEN';
      rows[2060]![1] = 'P-2060';
      const answers: any[] = [];
      const collect = async (res: { url(): string; request(): Request; json(): Promise<any> }) => {
        if (res.request().method() === 'POST' && res.url().endsWith(`/v1/fields/${other.svc_id}/values`)) {
          answers.push(await res.json());
        }
      };
      page.on('response', collect);
      try {
        await page
          .getByLabel('CSV file')
          .setInputFiles(
            csvFile('projects.csv', ['remote_id;value', ...rows.map(([value, remote]) => `${remote};${value}`)]),
          );
        await page.getByRole('button', { name: 'Import 2,100 values' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: 'Import finished: 1,000 values created of 2,100 rows.' })
          .waitFor();
      } finally {
        page.off('response', collect);
      }
      await expect(
        page.getByRole('progressbar', { name: 'Import progress' }).getAttribute('aria-valuenow'),
      ).resolves.toBe('100');
      await expect(textOf(page.getByRole('status').filter({ hasText: 'Import finished' }))).resolves.toBe(
        'Import finished: 1,000 values created of 2,100 rows. 2 batches were refused and stored nothing (below, row by row).',
      );
      expect(answers).toHaveLength(3);
      const [, invalid, conflict] = answers;
      expect(invalid).toEqual(
        errorBody('INVALID_REQUEST', {
          details: { errors: [{ path: '/items/499/value', message: expect.any(String) }] },
        }),
      );
      expect(conflict.error_code).toBe('CONFLICT');

      const batch2 = page.getByRole('region', { name: 'Batch 2, rows 1,002–2,001' });
      await expect(textOf(batch2)).resolves.toBe(
        'Batch 2 (rows 1,002–2,001, 1,000 rows): refused, nothing of it was stored\n' +
          `${invalid.message}\nRequest id: ${invalid.request_id}\n` +
          'Rows of batch 2 the service refused, and why\n' +
          'Row\tWhy\n' +
          `1,501\tvalue ${invalid.details.errors[0].message}`,
      );
      const batch3 = page.getByRole('region', { name: 'Batch 3, rows 2,002–2,101' });
      const taken = (await api.fieldValues.list(other.svc_id, { 'remote_id[]': ['P-TAKEN'] })).items[0]!;
      await expect(textOf(batch3)).resolves.toBe(
        'Batch 3 (rows 2,002–2,101, 100 rows): refused, nothing of it was stored\n' +
          `${conflict.message}\nRequest id: ${conflict.request_id}\n` +
          'Rows of batch 3 the service refused, and why\n' +
          'Row\tWhy\n' +
          `2,052\tremote_id “P-TAKEN” is already used by a value of this field (${taken.svc_id}).\n` +
          '2,062\tremote_id “P-2060” is also on row 2,061: it must be unique within the field.',
      );
      await page.getByRole('link', { name: 'Download the 1,100 rows of the refused batches' }).waitFor();
      await checkScreen(page, 'field-import-refused', dialect);

      // Batch 1 stored whole; nothing of batches 2 and 3.
      const stored = await allValues(api, other.svc_id);
      expect(stored.map((v) => v.remote_id)).toEqual(['P-TAKEN', ...rows.slice(0, 1000).map(([, remote]) => remote)]);
    });
  },
  { only: 'sqlite' },
);
