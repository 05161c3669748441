import type { BrowserContext, Locator, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Field, FieldValue, SvcClient } from '../../client/src/index.js';
import {
  API_SCOPES,
  checkScreen,
  DESKTOP,
  sharedBrowser,
  screenshot,
  signInThroughForm,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { errorBody } from '../support/expect.js';

const browser = sharedBrowser();

/** What a reader sees of an element: its rendered text, one line per block. */
const textOf = async (locator: Locator): Promise<string> => (await locator.innerText()).replace(/\n+/g, '\n').trim();

/** expect.poll with room for a busy machine. */
const eventually = <T>(value: () => T | Promise<T>) => expect.poll(value, { timeout: 20_000 });

/** A CSV file for the import's file input. */
const csvFile = (name: string, lines: string[]) => ({
  name,
  mimeType: 'text/csv',
  buffer: Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8'),
});

async function allValues(api: SvcClient, fieldId: string): Promise<FieldValue[]> {
  const values: FieldValue[] = [];
  for await (const value of api.fieldValues.listAll(fieldId, { limit: 1000 })) values.push(value);
  return values;
}

/** The value texts the values table shows, in order (its rows of values: five cells or more). */
const shownValues = (page: Page, fieldName: string) =>
  page
    .getByRole('table', { name: `Values of ${fieldName}` })
    .getByRole('row')
    .evaluateAll((trs) =>
      trs.flatMap((tr) => {
        const cells = tr.querySelectorAll('td');
        return cells.length >= 5 ? [(cells[0] as HTMLElement).innerText] : [];
      }),
    );

async function signIn(context: BrowserContext, base: string, user: { email: string; password: string }) {
  const page = await context.newPage();
  await page.goto(`${base}/sign-in`);
  await signInThroughForm(page, user);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return page;
}

eachDialectWith(
  'console fields and API clients in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;
    let api: SvcClient;
    let accountId: string;
    let field: Field;
    const base = () => `${server().url}/console`;
    const nav = (name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId, [...API_SCOPES]);
      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      context = await browser().newContext({ viewport: DESKTOP });
      context.setDefaultTimeout(15_000);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server().url });
      page = await signIn(context, base(), admin);
    });

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
        await screenshot(page, `failed-fields-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });

    afterAll(async () => {
      await context?.close();
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

    it('creates an API client whose secret is shown once and copied; it gets a token over HTTP; revoked, the token fails', async () => {
      await nav('API clients').click();
      await page.getByRole('heading', { level: 1, name: 'API clients' }).waitFor();
      const table = page.getByRole('table', { name: 'API clients of the account' });
      // The integration of these tests is the account's one client so far.
      await eventually(() => table.getByRole('row').count()).toBe(2);

      await page.getByRole('button', { name: 'Create API client' }).click();
      await page.getByRole('alert').filter({ hasText: 'Tick at least one scope.' }).waitFor();
      await page.getByRole('checkbox', { name: /^fields\.read / }).check();
      await page.getByRole('checkbox', { name: /^field_values\.read / }).check();
      const created = page.waitForResponse(
        (res) => res.url().endsWith('/internal/v1/clients') && res.request().method() === 'POST',
      );
      await page.getByRole('button', { name: 'Create API client' }).click();
      const credentials = await (await created).json();
      expect(credentials.scopes).toEqual(['fields.read', 'field_values.read']);
      await page.getByRole('heading', { name: 'API client created: copy its secret now' }).waitFor();
      await expect(page.getByLabel('Client secret').inputValue()).resolves.toBe(credentials.client_secret);
      await expect(page.getByLabel('Client id').inputValue()).resolves.toBe(credentials.client_id);
      await page.getByRole('button', { name: 'Copy secret' }).click();
      await page.getByRole('status').filter({ hasText: 'The secret is copied to the clipboard.' }).waitFor();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(credentials.client_secret);
      await checkScreen(page, 'api-client-secret', dialect);

      // The secret gets a token over HTTP; the token reads the fields.
      const tokenOf = () =>
        fetch(`${server().url}/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: credentials.client_id,
            client_secret: credentials.client_secret,
          }),
        });
      const token = await tokenOf();
      expect(token.status).toBe(200);
      const { access_token } = await token.json();
      const readFields = () =>
        fetch(`${server().url}/v1/fields`, { headers: { authorization: `Bearer ${access_token}` } });
      expect((await readFields()).status).toBe(200);

      // Done: the secret is gone from the page, for good.
      await page.getByRole('button', { name: 'Done: hide the secret' }).click();
      await page.getByRole('heading', { name: 'New API client' }).waitFor();
      expect(await page.content()).not.toContain(credentials.client_secret);
      await eventually(() => table.getByRole('row').count()).toBe(3);
      const row = table.getByRole('row').filter({ hasText: credentials.client_id });
      await eventually(() => textOf(row)).toContain('fields.read\nfield_values.read');
      await expect(textOf(row)).resolves.toContain('Active');
      await checkScreen(page, 'api-clients', dialect);

      // Rotate: the new secret is shown once; both secrets get tokens during the overlap.
      await page.getByRole('button', { name: `Rotate secret of ${credentials.client_id}` }).click();
      await page.getByRole('button', { name: `Yes, rotate the secret of ${credentials.client_id}` }).click();
      await page.getByRole('heading', { name: 'New secret made: copy it now' }).waitFor();
      const rotatedSecret = await page.getByLabel('Client secret').inputValue();
      expect(rotatedSecret).toMatch(/^svc_cs_/);
      expect(rotatedSecret).not.toBe(credentials.client_secret);
      await page.getByText(/^The previous secret keeps working until /).waitFor();
      const withRotated = await fetch(`${server().url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: credentials.client_id,
          client_secret: rotatedSecret,
        }),
      });
      expect(withRotated.status).toBe(200);
      expect((await tokenOf()).status).toBe(200);
      await page.getByRole('button', { name: 'Done: hide the secret' }).click();
      expect(await page.content()).not.toContain(rotatedSecret);

      await page.getByRole('button', { name: `Revoke ${credentials.client_id}` }).click();
      await page.getByRole('button', { name: `Yes, revoke ${credentials.client_id}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${credentials.client_id} is revoked: its tokens no longer work.` })
        .waitFor();
      await eventually(() => textOf(row)).toContain('Revoked');
      await expect(row.getByRole('button').count()).resolves.toBe(0);
      const refused = await readFields();
      expect(refused.status).toBe(401);
      expect((await tokenOf()).status).toBe(401);
    });

    it('shows a read-only user the fields and values but no way to change them, and the server refuses the same requests from its session with 403', async () => {
      const reader = await newUser(server().db, 'READ_ONLY', accountId);
      const readOnly = await browser().newContext({ viewport: DESKTOP });
      readOnly.setDefaultTimeout(15_000);
      try {
        const other = await signIn(readOnly, base(), reader);
        const main = other.getByRole('navigation', { name: 'Main' });
        await expect(main.getByRole('link', { name: 'API clients' }).count()).resolves.toBe(0);
        await main.getByRole('link', { name: 'Fields' }).click();
        const fields = other.getByRole('table', { name: 'Custom fields of the account' }).getByRole('row');
        await eventually(() => fields.allInnerTexts()).toEqual([
          'Field\tGroup\tRemote id\tState\tUpdated',
          expect.stringMatching(/^Cost center\tAccounting\t—\tActive\t/),
          expect.stringMatching(/^Project\tERP\t—\tActive\t/),
        ]);
        await expect(other.getByRole('button', { name: 'Create field' }).count()).resolves.toBe(0);
        await checkScreen(other, 'fields', dialect);
        await other.getByRole('link', { name: 'Cost center' }).click();
        await other.getByRole('heading', { level: 1, name: 'Cost center' }).waitFor();
        await other.getByText('Your role can see the values but not change them.').waitFor();
        await eventually(async () => (await shownValues(other, 'Cost center')).length).toBe(50);
        for (const name of ['Add value', 'Edit', 'Disable', 'Delete', 'Rename', 'Delete field']) {
          await expect(other.getByRole('button', { name }).count(), name).resolves.toBe(0);
        }
        await expect(other.getByLabel('CSV file').count()).resolves.toBe(0);
        await checkScreen(other, 'field-read-only', dialect);

        await other.goto(`${base()}/api-clients`);
        await other.getByText('Only an account admin manages the account’s API clients.').waitFor();

        const forced = await other.evaluate(async (fieldId) => {
          const session = await (await fetch('/auth/session')).json();
          const send = (method: string, url: string, body?: unknown) =>
            fetch(url, {
              method,
              headers: {
                'content-type': 'application/json',
                'x-csrf-token': session.csrf_token,
                'idempotency-key': crypto.randomUUID(),
              },
              ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            }).then(async (res) => ({ status: res.status, body: await res.json() }));
          return {
            create: await send('POST', `/v1/fields/${fieldId}/values`, { items: [{ value: 'Forced' }] }),
            update: await send('PUT', `/v1/fields/${fieldId}/values`, {
              items: [{ remote_id: 'CC-0001', data: { value: 'Forced' } }],
            }),
            remove: await send('DELETE', `/v1/fields/${fieldId}/values`, { items: [{ remote_id: 'CC-0001' }] }),
            clients: await fetch('/internal/v1/clients').then(async (res) => ({
              status: res.status,
              body: await res.json(),
            })),
          };
        }, field.svc_id);
        const refusal = (scopes: string[]) =>
          errorBody('FORBIDDEN', {
            message: 'Your role (READ_ONLY) does not allow this operation.',
            details: { role: 'READ_ONLY', required_scopes: scopes },
          });
        expect(forced.create).toEqual({ status: 403, body: refusal(['field_values.write']) });
        expect(forced.update).toEqual({ status: 403, body: refusal(['field_values.write']) });
        expect(forced.remove).toEqual({ status: 403, body: refusal(['fields.write']) });
        expect(forced.clients).toEqual({ status: 403, body: refusal(['account.admin']) });
        const stored = await allValues(api, field.svc_id);
        expect(stored).toHaveLength(2500);
        expect(stored[0]!.value).toBe('Center 0001, "main"');
      } finally {
        await readOnly.close();
      }
    });

    it("says in words, with the request id, that a field is not the account's", async () => {
      const elsewhere = await (
        await server().apiClient(newAccountId())
      ).fields.create({ name: 'Theirs', group: 'USER' });
      const answered = page.waitForResponse((res) => res.url().endsWith(`/v1/fields/${elsewhere.svc_id}`));
      await page.goto(`${base()}/fields/${elsewhere.svc_id}`);
      const answer = await (await answered).json();
      expect(answer.error_code).toBe('NOT_FOUND');
      await eventually(() => textOf(page.getByRole('alert'))).toBe(
        `There is no field ${elsewhere.svc_id} in your account.\n${answer.message}\nRequest id: ${answer.request_id}\nAll fields`,
      );
      await checkScreen(page, 'field-not-found', dialect);
    });

    it('lets a bookkeeper add and change values but not delete them (fields.write), as the server enforces', async () => {
      const bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
      const own = await browser().newContext({ viewport: DESKTOP });
      own.setDefaultTimeout(15_000);
      try {
        const other = await signIn(own, base(), bookkeeper);
        await other.goto(`${base()}/fields/${field.svc_id}`);
        await other.getByRole('heading', { level: 1, name: 'Cost center' }).waitFor();
        await other.getByRole('button', { name: 'Edit “Center 0001, "main"”' }).waitFor();
        await other.getByLabel('CSV file').waitFor();
        await expect(other.getByRole('button', { name: /^Delete/ }).count()).resolves.toBe(0);
        await expect(other.getByRole('button', { name: 'Rename' }).count()).resolves.toBe(0);
        await other.getByRole('button', { name: 'Disable “Center 0001, "main"”' }).click();
        await other.getByRole('status').filter({ hasText: 'Disabled “Center 0001, "main"”.' }).waitFor();
        expect((await api.fieldValues.list(field.svc_id, { 'remote_id[]': ['CC-0001'] })).items[0]!.is_disabled).toBe(
          true,
        );
        const remove = await other.evaluate(async (fieldId) => {
          const session = await (await fetch('/auth/session')).json();
          const res = await fetch(`/v1/fields/${fieldId}/values`, {
            method: 'DELETE',
            headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
            body: JSON.stringify({ items: [{ remote_id: 'CC-0001' }] }),
          });
          return res.status;
        }, field.svc_id);
        expect(remove).toBe(403);
      } finally {
        await own.close();
      }
    });
  },
  { only: 'sqlite' },
);
