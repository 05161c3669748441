import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { FieldValue, SvcClient } from '../../client/src/index.js';
import {
  checkScreen,
  eventually,
  newContext,
  screenshot,
  sharedBrowser,
  signIn,
  startConsoleServer,
  tableCells,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { CEILING_MS } from '../support/wait.js';

const browser = sharedBrowser();
const RULES_TABLE = 'Coding rules in precedence order';

eachDialectWith(
  'console coding rules: line values and merchant category codes in the form',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    const values: Record<string, FieldValue> = {};
    let accountId: string;
    let api: SvcClient;
    let gl: string;
    let department: string;
    let context: BrowserContext;
    let page: Page;
    const base = () => `${server().url}/console`;

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId);
      gl = (await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' })).svc_id;
      department = (await api.fields.create({ name: 'Department', group: 'ACCOUNTING' })).svc_id;
      for (const v of [
        ...(await api.fieldValues.create(gl, [{ value: 'Meals', remote_id: '6200' }])).items,
        ...(
          await api.fieldValues.create(department, [
            { value: 'Sales', remote_id: 'D10' },
            { value: 'Marketing', remote_id: 'D30' },
          ])
        ).items,
      ]) {
        values[v.value] = v;
      }
      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      context = await newContext(browser());
      page = await signIn(context, base(), admin);
    });

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
        await screenshot(page, `failed-rule-conditions-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });

    afterAll(async () => {
      await context?.close();
    });

    it(
      'creates a rule on a line value and merchant category codes: codes checked as typed and by the service, values picked, stored as sent, said in words',
      { timeout: 4 * CEILING_MS },
      async () => {
        await page.goto(`${base()}/coding-rules/new`);
        await page.getByRole('heading', { level: 1, name: 'New coding rule' }).waitFor();
        const form = page.getByRole('form', { name: 'Coding rule' });
        await form.getByLabel('Name', { exact: true }).fill('Sales meals');

        // A code that is not four digits is said next to the input as it is typed.
        const codes = form.getByLabel('Merchant category codes');
        await codes.fill('5812, 581');
        await form.getByText('A merchant category code is four digits: “581” is not.', { exact: true }).waitFor();
        await expect(codes.getAttribute('aria-invalid')).resolves.toBe('true');

        // A line's value: a field, then values picked with the type-ahead (and one taken out again).
        await form.getByRole('button', { name: 'Add a line condition' }).click();
        await form.getByLabel('Field of line condition 1').selectOption({ label: 'Department' });
        const picker = form.getByRole('combobox', { name: "A line's Department" });
        await picker.fill('Sal');
        await page.getByRole('option', { name: 'Sales · D10' }).click();
        await picker.fill('Mark');
        await page.getByRole('option', { name: 'Marketing · D30' }).click();
        const chosen = form.getByRole('list', { name: 'Values of line condition 1' }).getByRole('listitem');
        await eventually(() => chosen.allInnerTexts()).toEqual(['Sales Remove Sales', 'Marketing Remove Marketing']);
        await form.getByRole('button', { name: 'Remove Marketing' }).click();
        await eventually(() => chosen.count()).toBe(1);
        await expect(picker.inputValue()).resolves.toBe('');

        await form.getByRole('combobox', { name: 'GL Account', exact: true }).fill('Mea');
        await page.getByRole('option', { name: 'Meals · 6200' }).click();

        // Sent with the wrong code: the service refuses it, and says so next to the codes; nothing is saved.
        const refused = page.waitForResponse(
          (res) => res.url().endsWith('/internal/v1/accounting/coding-rules') && res.request().method() === 'POST',
        );
        await form.getByRole('button', { name: 'Save rule' }).click();
        expect((await refused).status()).toBe(400);
        await eventually(() => textOf(page.getByRole('alert'))).toMatch(/\nMerchant category codes: .+/);
        expect((await api.codingRules.list()).items).toEqual([]);

        await codes.fill('5812 5814');
        // The check as typed is satisfied (the service's refusal stays shown until the next save, as for every input).
        await eventually(() => form.getByText('A merchant category code is four digits').count()).toBe(0);
        await checkScreen(page, 'coding-rule-line-conditions', dialect);
        await form.getByRole('button', { name: 'Save rule' }).click();
        await page.getByRole('status').filter({ hasText: 'Sales meals is saved.' }).waitFor();
        await eventually(() => tableCells(page, RULES_TABLE).then((rows) => rows[0]?.slice(1, 4))).toEqual([
          'Sales meals\nVersion 1',
          "A line's Department is Sales\nMerchant category is 5812 or 5814",
          'GL Account → Meals',
        ]);
        const [rule, ...others] = (await api.codingRules.list()).items;
        expect(others).toEqual([]);
        expect(rule).toMatchObject({
          name: 'Sales meals',
          conditions: {
            merchant_category_codes: ['5812', '5814'],
            line_field_values: [{ field_id: department, svc_ids: [values.Sales!.svc_id] }],
          },
          actions: { field_values: [{ field_id: gl, svc_id: values.Meals!.svc_id }] },
        });
        expect(Object.keys(rule!.conditions).sort()).toEqual(['line_field_values', 'merchant_category_codes']);

        // Edited: the form shows both as saved; a value added and a code taken out are stored so.
        await page.getByRole('link', { name: 'Sales meals' }).click();
        await page.getByRole('heading', { level: 1, name: 'Sales meals' }).waitFor();
        await eventually(() => codes.inputValue()).toBe('5812, 5814');
        await eventually(() => chosen.allInnerTexts()).toEqual(['Sales Remove Sales']);
        await picker.fill('Mark');
        await page.getByRole('option', { name: 'Marketing · D30' }).click();
        await codes.fill('5814');
        await form.getByRole('button', { name: 'Save changes' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved: the rule is now at version 2.' }).waitFor();
        expect((await api.codingRules.get(rule!.id)).conditions).toEqual({
          merchant_category_codes: ['5814'],
          line_field_values: [{ field_id: department, svc_ids: [values.Sales!.svc_id, values.Marketing!.svc_id] }],
        });
        await page
          .getByText("Conditions now: A line's Department is Sales or Marketing; Merchant category is 5814")
          .waitFor();
      },
    );
  },
  { only: 'sqlite' },
);
