import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { AccountingRecord } from '../../client/src/index.js';
import {
  checkScreen,
  eventually,
  expectNoSeriousAxeViolations,
  newContext,
  screenshot,
  sharedBrowser,
  signIn,
  startConsoleServer,
  tableCells,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { RULES_TABLE, rulesAccount, shownRuleNames, type RulesAccount } from '../support/console-coding-rules.js';
import { eachDialectWith } from '../support/dialects.js';
import { CEILING_MS } from '../support/wait.js';

const browser = sharedBrowser();

const coding = (record: AccountingRecord) =>
  record.line_items.map((line) =>
    line.accounting_field_values.map((c) => `${c.field_name}=${c.field_value_name}`).sort(),
  );

eachDialectWith(
  'console coding rules in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let accountId: string;
    let api: RulesAccount['api'];
    let gl: string;
    let department: string;
    let values: RulesAccount['values'];
    let r: RulesAccount['r'];
    let coffeeRule: string;
    let acmeRule: string;
    let context: BrowserContext;
    let page: Page;
    const base = () => `${server().url}/console`;

    beforeAll(async () => {
      ({ accountId, api, gl, department, values, r } = await rulesAccount(server()));
      coffeeRule = (
        await api.codingRules.create({
          name: 'Coffee is meals',
          conditions: { vendor_name: { operator: 'CONTAINS', value: 'bottle' } },
          actions: { field_values: [{ field_id: gl, svc_id: values.Meals!.svc_id }] },
        })
      ).id;

      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      context = await newContext(browser());
      page = await signIn(context, base(), admin);
    });

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
        await screenshot(page, `failed-rules-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });

    afterAll(async () => {
      await context?.close();
    });

    it(
      'an admin makes a rule from a coded record: prefilled, previewed (the count), saved, moved up, the other disabled; applied, the records are coded',
      { timeout: 6 * CEILING_MS },
      async () => {
        await page.goto(`${base()}/records/${encodeURIComponent(r.coded!.id)}`);
        await page.getByRole('heading', { level: 1, name: 'Acme Travel, 120.00 USD' }).waitFor();
        await page.getByRole('link', { name: 'Rule from this record' }).click();
        await page.getByRole('heading', { level: 1, name: 'New coding rule' }).waitFor();
        const form = page.getByRole('form', { name: 'Coding rule' });
        await eventually(() => form.getByLabel('Name', { exact: true }).inputValue()).toBe('Rule from Acme Travel');
        await expect(form.getByLabel('Vendor name condition').inputValue()).resolves.toBe('EQUALS');
        await expect(form.getByLabel('Vendor name', { exact: true }).inputValue()).resolves.toBe('Acme Travel');
        await expect(form.getByRole('checkbox', { name: 'Card', exact: true }).isChecked()).resolves.toBe(true);
        await expect(form.getByRole('checkbox', { name: 'Bill', exact: true }).isChecked()).resolves.toBe(false);
        await expect(form.getByRole('combobox', { name: 'GL Account' }).inputValue()).resolves.toBe('Travel');
        await expect(form.getByRole('combobox', { name: 'Department' }).inputValue()).resolves.toBe('Sales');
        await form.getByLabel('Name', { exact: true }).fill('Acme is travel');

        // Preview: the two Acme records under review without coding (not the coded one, not the one approved).
        await form.getByRole('button', { name: 'Preview' }).click();
        const preview = page.getByRole('region', { name: 'Preview', exact: true });
        await preview.getByText('The rule would change 2 records under review now.').waitFor();
        const expected = await api.codingRules.preview({
          rule: {
            conditions: { vendor_name: { operator: 'EQUALS', value: 'Acme Travel' }, source_types: ['CARD'] },
            actions: {
              field_values: [
                { field_id: gl, svc_id: values.Travel!.svc_id },
                { field_id: department, svc_id: values.Sales!.svc_id },
              ],
            },
          },
        });
        expect(expected.records_changed).toBe(2);
        const sampleRows = expected.sample.flatMap((s) =>
          s.lines.flatMap((line) =>
            line.field_values.map((v) => [
              s.accounting_record_id,
              line.line_id,
              v.field_id === gl ? 'GL Account' : 'Department',
              '—',
              v.after!.value,
            ]),
          ),
        );
        expect(sampleRows).toHaveLength(4);
        await eventually(() => tableCells(page, 'What the rule would change, line by line')).toEqual(sampleRows);
        expect(sampleRows.map((row) => row[0])).toEqual([r.second!.id, r.second!.id, r.third!.id, r.third!.id]);
        await checkScreen(page, 'coding-rule-new', dialect);

        // Save: the list, in precedence order (the new rule after the one that was there).
        await form.getByRole('button', { name: 'Save rule' }).click();
        await page.getByRole('heading', { level: 1, name: 'Coding rules' }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Acme is travel is saved.' }).waitFor();
        await eventually(() => shownRuleNames(page)).toEqual(['Coffee is meals', 'Acme is travel']);
        await eventually(() => tableCells(page, RULES_TABLE)).toEqual([
          [
            '1',
            'Coffee is meals\nVersion 1',
            'Vendor name contains “bottle”',
            'GL Account → Meals',
            'Active',
            expect.stringContaining('Enabled'),
          ],
          [
            '2',
            'Acme is travel\nVersion 1',
            'Vendor name is “Acme Travel”\nSource is Card',
            'GL Account → Travel\nDepartment → Sales',
            'Active',
            expect.stringContaining('Enabled'),
          ],
        ]);
        const saved = (await api.codingRules.list()).items;
        expect(saved.map((x) => [x.name, x.position, x.version, x.enabled])).toEqual([
          ['Coffee is meals', 0, 1, true],
          ['Acme is travel', 1, 1, true],
        ]);
        acmeRule = saved[1]!.id;
        expect(saved[1]).toMatchObject({
          conditions: { vendor_name: { operator: 'EQUALS', value: 'Acme Travel' }, source_types: ['CARD'] },
          actions: {
            field_values: [
              { field_id: gl, svc_id: values.Travel!.svc_id },
              { field_id: department, svc_id: values.Sales!.svc_id },
            ],
          },
        });
        await checkScreen(page, 'coding-rules', dialect);

        // Move it up: each rule whose place changed is saved at the version listed.
        await page.getByRole('button', { name: 'Move Acme is travel up' }).click();
        await page.getByRole('status').filter({ hasText: 'Acme is travel is now number 1 in precedence.' }).waitFor();
        await eventually(() => shownRuleNames(page)).toEqual(['Acme is travel', 'Coffee is meals']);
        expect((await api.codingRules.list()).items.map((x) => [x.name, x.position, x.version])).toEqual([
          ['Acme is travel', 0, 2],
          ['Coffee is meals', 1, 2],
        ]);
        await expect(page.getByRole('button', { name: 'Move Acme is travel up' }).isDisabled()).resolves.toBe(true);

        // Disable the coffee rule: its status says so; it applies no more.
        await page.getByRole('checkbox', { name: 'Enabled: Coffee is meals' }).uncheck();
        await page.getByRole('status').filter({ hasText: 'Coffee is meals is disabled.' }).waitFor();
        await eventually(() => tableCells(page, RULES_TABLE).then((rows) => rows[1]?.[4])).toBe('Disabled');
        expect(await api.codingRules.get(coffeeRule)).toMatchObject({ enabled: false, status: 'DISABLED', version: 3 });

        // Apply now: the two Acme records under review are coded; the coffee record and the approved one are not.
        await page.getByRole('button', { name: 'Apply rules now' }).click();
        await page.getByRole('status').filter({ hasText: 'Rules applied: 2 records changed.' }).waitFor();
        for (const id of [r.second!.id, r.third!.id]) {
          const record = await api.accountingRecords.get(id, { single_entry: true });
          expect(coding(record)).toEqual([['Department=Sales', 'GL Account=Travel']]);
          expect(record.version).toBe(2);
        }
        expect(coding(await api.accountingRecords.get(r.bottle!.id, { single_entry: true }))).toEqual([[]]);
        expect(coding(await api.accountingRecords.get(r.ready!.id, { single_entry: true }))).toEqual([[]]);
        await page.getByRole('link', { name: r.second!.id }).click();
        await page.getByRole('heading', { level: 1, name: 'Acme Travel, 80.00 USD' }).waitFor();
        await eventually(() => page.getByRole('combobox', { name: 'GL Account for line 1' }).inputValue()).toBe(
          'Travel',
        );
      },
    );

    it(
      'says a rule changed meanwhile and reloads the list; a refused change is shown by its inputs; the history says who changed what',
      { timeout: 4 * CEILING_MS },
      async () => {
        await page.goto(`${base()}/coding-rules`);
        await eventually(() => shownRuleNames(page)).toEqual(['Acme is travel', 'Coffee is meals']);
        const listed = await api.codingRules.get(coffeeRule);
        await api.codingRules.update(coffeeRule, { version: listed.version, name: 'Coffee and tea are meals' });
        const answer = page.waitForResponse((res) => res.url().endsWith(`/coding-rules/${coffeeRule}`));
        await page.getByRole('checkbox', { name: 'Enabled: Coffee is meals' }).click();
        expect((await answer).status()).toBe(409);
        await page
          .getByRole('alert')
          .filter({ hasText: 'Someone else changed the rules since this list was loaded' })
          .waitFor();
        await eventually(() => shownRuleNames(page)).toEqual(['Acme is travel', 'Coffee and tea are meals']);
        expect(await api.codingRules.get(coffeeRule)).toMatchObject({ enabled: false, version: 4 });

        // A refusal: an amount range no amount is in, pointed at by the service and shown next to the amount.
        await page.getByRole('link', { name: 'Acme is travel' }).click();
        await page.getByRole('heading', { level: 1, name: 'Acme is travel' }).waitFor();
        const form = page.getByRole('form', { name: 'Coding rule' });
        await form.getByLabel('Currency').fill('USD');
        await form.getByLabel('Minimum amount').fill('300');
        await form.getByLabel('Maximum amount').fill('100');
        await form.getByRole('button', { name: 'Save changes' }).click();
        const refusal = page.getByRole('alert');
        await refusal.waitFor();
        expect(await textOf(refusal)).toMatch(
          /^The rule was not saved: the service found a problem\.\nAmount: has min 300 greater than max 100: no amount can match\nRequest id: \S+$/,
        );
        await expect(form.getByLabel('Minimum amount').getAttribute('aria-invalid')).resolves.toBe('true');
        await expect(
          form.getByText('has min 300 greater than max 100: no amount can match', { exact: true }).count(),
        ).resolves.toBe(1);
        await expectNoSeriousAxeViolations(page, 'coding rule refused');
        expect((await api.codingRules.get(acmeRule)).version).toBe(2);

        // A value disabled meanwhile: 422 INVALID_CODING, shown at its field's picker.
        await form.getByLabel('Minimum amount').fill('');
        await form.getByLabel('Maximum amount').fill('500');
        await api.fieldValues.update(gl, [{ svc_id: values.Travel!.svc_id, data: { is_disabled: true } }]);
        const refused = page.waitForResponse((res) => res.url().endsWith(`/coding-rules/${acmeRule}`));
        await form.getByRole('button', { name: 'Save changes' }).click();
        expect((await refused).status()).toBe(422);
        await eventually(() => textOf(page.getByRole('alert'))).toMatch(
          /^The rule was not saved: the service found a problem\.\nGL Account: is the disabled value "Travel" of GL Account\nRequest id: \S+$/,
        );
        const glPicker = form.getByRole('combobox', { name: 'GL Account', exact: true });
        await expect(glPicker.getAttribute('aria-invalid')).resolves.toBe('true');
        await expect(form.getByLabel('Minimum amount').getAttribute('aria-invalid')).resolves.toBeNull();
        await api.fieldValues.update(gl, [{ svc_id: values.Travel!.svc_id, data: { is_disabled: false } }]);

        // Fixed and saved: a new version; the history names each change and who made it.
        await form.getByRole('button', { name: 'Save changes' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved: the rule is now at version 3.' }).waitFor();
        const history = page.getByRole('region', { name: 'History' }).locator('ol > li');
        const versions = () =>
          history.evaluateAll((lis) => lis.map((li) => (li as HTMLElement).innerText.replace(/\n+/g, '\n').trim()));
        await eventually(versions).toEqual([
          expect.stringMatching(
            /^Version 3, .+ UTC by you\nConditions now: Vendor name is “Acme Travel”; Source is Card; Amount at most 500 USD$/,
          ),
          expect.stringMatching(/^Version 2, .+ UTC by you\nPosition changed from 1 to 0$/),
          expect.stringMatching(/^Version 1, .+ UTC by you\nCreated as “Acme is travel”, enabled$/),
        ]);
        await checkScreen(page, 'coding-rule', dialect);
      },
    );

    it(
      'keeps the conditions of a rule made through the API (a line value, merchant category codes), and says them with names',
      { timeout: 4 * CEILING_MS },
      async () => {
        const conditions = {
          line_field_values: [{ field_id: department, svc_ids: [values.Sales!.svc_id] }],
          merchant_category_codes: ['4121', '4511'],
        };
        const rule = await api.codingRules.create({
          name: 'Sales taxis',
          conditions,
          actions: { field_values: [{ field_id: gl, svc_id: values.Travel!.svc_id }] },
        });
        await page.goto(`${base()}/coding-rules`);
        await eventually(() => tableCells(page, RULES_TABLE).then((rows) => rows[2]?.slice(1, 3))).toEqual([
          'Sales taxis\nVersion 1',
          "A line's Department is Sales\nMerchant category is 4121 or 4511",
        ]);
        await page.getByRole('link', { name: 'Sales taxis' }).click();
        const form = page.getByRole('form', { name: 'Coding rule' });
        await form.getByLabel('Name', { exact: true }).fill('Sales taxis and flights');
        await form.getByRole('button', { name: 'Save changes' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved: the rule is now at version 2.' }).waitFor();
        expect(await api.codingRules.get(rule.id)).toMatchObject({ name: 'Sales taxis and flights', conditions });
        await api.codingRules.delete(rule.id);
      },
    );
  },
  { only: 'sqlite' },
);
