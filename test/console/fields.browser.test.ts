import type { Page, Request } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { Field, SvcClient } from '../../client/src/index.js';
import { checkScreen, sharedBrowser, startConsoleServer, textOf } from '../support/browser.js';
import { allValues, eventually, fieldsConsole, shownValues } from '../support/console-fields.js';
import { eachDialectWith } from '../support/dialects.js';
import { errorBody } from '../support/expect.js';

const browser = sharedBrowser();

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
          .getByRole('status', { name: 'Import preview' })
          .filter({ hasText: 'Preview: 2,500 rows to create, 0 rows to update by remote_id, 0 unchanged' })
          .waitFor();
        await page.getByRole('button', { name: 'Import 2,500 rows' }).click();
        const bar = page.getByRole('progressbar', { name: 'Import progress' });
        await bar.waitFor();
        await eventually(() => bar.getAttribute('aria-valuenow')).toBe('100');
        await expect(bar.getAttribute('aria-valuetext')).resolves.toBe('2,500 of 2,500 rows sent (100%)');
        await page
          .getByRole('status')
          .filter({ hasText: 'Import finished: 2,500 values created, 0 updated' })
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

    it('previews a CSV and reports each row: a row the service refuses is named with its reason and holds back no other', async () => {
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

      // 2,100 rows: an empty value on row 1501 (the service refuses it); row 2052 names a stored remote_id (skipped,
      // the default); row 2062 repeats row 2061's remote_id (invalid). Every other row is stored.
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
        await page
          .getByRole('status', { name: 'Import preview' })
          .filter({ hasText: '2,098 rows to create, 0 rows to update by remote_id, 0 unchanged, 1 skipped' })
          .waitFor();
        await page.getByRole('button', { name: 'Import 2,098 rows' }).click();
        await page.getByRole('status').filter({ hasText: 'Import finished' }).waitFor();
      } finally {
        page.off('response', collect);
      }
      await expect(
        page.getByRole('progressbar', { name: 'Import progress' }).getAttribute('aria-valuenow'),
      ).resolves.toBe('100');
      await expect(textOf(page.getByRole('status').filter({ hasText: 'Import finished' }))).resolves.toBe(
        'Import finished: 2,097 values created, 0 updated, 0 unchanged, 1 skipped, 1 invalid, 1 refused.',
      );
      // The second request was refused for row 1501 alone and sent again without it.
      expect(answers).toHaveLength(4);
      const invalid = answers[1];
      expect(invalid).toEqual(
        errorBody('INVALID_REQUEST', {
          details: { errors: [{ path: '/items/499/value', message: expect.any(String) }] },
        }),
      );
      expect(answers.map((a) => a.items?.length ?? a.error_code)).toEqual([1000, 'INVALID_REQUEST', 999, 98]);
      expect(await rowsOf(page, 'Rows not created or updated, and why')).toEqual([
        ['1,501', 'Refused', `value ${invalid.details.errors[0].message}`],
        ['2,052', 'Skipped (exists)', 'remote_id “P-TAKEN” is already the value “Existing”: skipped.'],
        ['2,062', 'Invalid', 'remote_id “P-2060” is also on row 2,061: it must be unique within the field.'],
      ]);
      await page.getByRole('link', { name: 'Download the 2 rows not imported' }).waitFor();
      await checkScreen(page, 'field-import-refused', dialect);

      const stored = await allValues(api, other.svc_id);
      const expected = rows.filter((_, i) => ![1499, 2050, 2060].includes(i)).map(([, remote]) => remote);
      expect(stored.map((v) => v.remote_id)).toEqual(['P-TAKEN', ...expected]);
    });
  },
  { only: 'sqlite' },
);
