import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { Field, SvcClient } from '../../client/src/index.js';
import { checkScreen, newContext, sharedBrowser, startConsoleServer, textOf } from '../support/browser.js';
import { allValues, eventually, fieldsConsole, shownValues, signedInPage } from '../support/console-fields.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { errorBody } from '../support/expect.js';

const browser = sharedBrowser();

eachDialectWith(
  'console fields and API clients in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    const admin = fieldsConsole(server, dialect, browser);
    const { base, nav } = admin;
    let page: Page;
    let api: SvcClient;
    let accountId: string;
    let field: Field;
    // The account as fields.browser.test.ts leaves it: Cost center with the 2,500 values of its CSV import (every
    // tenth disabled), then Project.
    beforeAll(async () => {
      ({ page, api, accountId } = admin.opened());
      field = await api.fields.create({ name: 'Cost center', group: 'ACCOUNTING' });
      const values = Array.from({ length: 2500 }, (_, i) => {
        const n = String(i + 1).padStart(4, '0');
        return { value: `Center ${n}, "main"`, remote_id: `CC-${n}`, ...(i % 10 === 9 ? { is_disabled: true } : {}) };
      });
      for (let i = 0; i < values.length; i += 1000) {
        await api.fieldValues.create(field.svc_id, values.slice(i, i + 1000));
      }
      await api.fields.create({ name: 'Project', group: 'ERP' });
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

      // Change its scopes: fields.read taken away leaves the live token at once; webhooks.read is added.
      await page.getByRole('button', { name: `Change scopes of ${credentials.client_id}` }).click();
      const scopesForm = page.getByRole('form', { name: `Scopes of ${credentials.client_id}` });
      await eventually(() => scopesForm.getByRole('checkbox', { name: /^fields\.read / }).isChecked()).toBe(true);
      await scopesForm.getByRole('checkbox', { name: /^fields\.read / }).uncheck();
      await scopesForm.getByRole('checkbox', { name: /^webhooks\.read / }).check();
      await scopesForm.getByRole('button', { name: 'Save scopes' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `The scopes of ${credentials.client_id} are saved` })
        .waitFor();
      await eventually(() => textOf(row)).toContain('field_values.read\nwebhooks.read');
      expect((await readFields()).status).toBe(403);

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
      const readOnly = await newContext(browser());
      try {
        const other = await signedInPage(readOnly, base(), reader);
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
      const own = await newContext(browser());
      try {
        const other = await signedInPage(own, base(), bookkeeper);
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
