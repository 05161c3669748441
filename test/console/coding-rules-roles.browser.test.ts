import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
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
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { RULES_TABLE, rulesAccount, shownRuleNames, type RulesAccount } from '../support/console-coding-rules.js';
import { eachDialectWith } from '../support/dialects.js';
import { errorBody } from '../support/expect.js';
import { CEILING_MS } from '../support/wait.js';

const browser = sharedBrowser();
const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });

/**
 * The coding rules as a bookkeeper sees them (read and preview, nothing to change; a forged change refused), and a
 * rule broken by a value disabled after it was made. The account's rules are made through the API, as an admin
 * left them in coding-rules.browser.test.ts: Acme is travel (applied), Coffee and tea are meals (disabled).
 */
eachDialectWith(
  'console coding rules in a browser: a broken rule, and a bookkeeper',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let accountId: string;
    let api: RulesAccount['api'];
    let department: string;
    let values: RulesAccount['values'];
    let r: RulesAccount['r'];
    let context: BrowserContext;
    let page: Page;
    /** The page a failed test leaves a screenshot of, when not the admin's. */
    let shown: Page | undefined;
    const base = () => `${server().url}/console`;

    beforeAll(async () => {
      const account = await rulesAccount(server());
      ({ accountId, api, department, values, r } = account);
      // As the admin's story leaves it: made from a coded record, then given an amount range.
      await api.codingRules.create({
        name: 'Acme is travel',
        conditions: {
          vendor_name: { operator: 'EQUALS', value: 'Acme Travel' },
          source_types: ['CARD'],
          amount: { currency: 'USD', max: 500 },
        },
        actions: {
          field_values: [
            { field_id: account.gl, svc_id: values.Travel!.svc_id },
            { field_id: department, svc_id: values.Sales!.svc_id },
          ],
        },
      });
      await api.codingRules.create({
        name: 'Coffee and tea are meals',
        enabled: false,
        conditions: { vendor_name: { operator: 'CONTAINS', value: 'bottle' } },
        actions: { field_values: [{ field_id: account.gl, svc_id: values.Meals!.svc_id }] },
      });
      await api.codingRules.apply();

      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      context = await newContext(browser());
      page = await signIn(context, base(), admin);
    });

    afterEach(async (test) => {
      const failed = shown && !shown.isClosed() ? shown : page;
      if (test.task.result?.state === 'fail' && failed && !failed.isClosed()) {
        await screenshot(failed, `failed-rules-roles-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });

    afterAll(async () => {
      await context?.close();
    });

    it('shows a broken rule with its problem in words', async () => {
      const broken = await api.codingRules.create({
        name: 'Engineering software',
        conditions: { vendor_name: { operator: 'CONTAINS', value: 'cloud' } },
        actions: { field_values: [{ field_id: department, svc_id: values.Engineering!.svc_id }] },
      });
      await api.fieldValues.update(department, [{ svc_id: values.Engineering!.svc_id, data: { is_disabled: true } }]);
      await page.goto(`${base()}/coding-rules`);
      await eventually(() => tableCells(page, RULES_TABLE).then((rows) => rows[2]?.slice(1, 5))).toEqual([
        'Engineering software\nVersion 1',
        'Vendor name contains “cloud”',
        'Department → Engineering',
        'Broken\nIts value Engineering of Department is disabled: enable it, or choose another.',
      ]);
      expect(await api.codingRules.get(broken.id)).toMatchObject({ status: 'BROKEN' });
    });

    it(
      'shows a bookkeeper the rules and a preview, no way to change them; the server refuses a forged change with 403',
      { timeout: 4 * CEILING_MS },
      async () => {
        const bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
        const theirs = await newContext(browser());
        try {
          const other = await signIn(theirs, base(), bookkeeper);
          shown = other;
          await nav(other).getByRole('link', { name: 'Coding rules' }).click();
          await other.getByRole('heading', { level: 1, name: 'Coding rules' }).waitFor();
          await eventually(() => shownRuleNames(other)).toEqual([
            'Acme is travel',
            'Coffee and tea are meals',
            'Engineering software',
          ]);
          await expect(other.getByRole('columnheader').allInnerTexts()).resolves.toEqual([
            'Order',
            'Rule',
            'When',
            'Sets',
            'Status',
          ]);
          for (const name of ['Apply rules now', 'Move Acme is travel down', 'Delete Acme is travel']) {
            await expect(other.getByRole('button', { name }).count(), name).resolves.toBe(0);
          }
          await expect(other.getByRole('checkbox').count()).resolves.toBe(0);
          await expect(other.getByRole('link', { name: 'New rule' }).count()).resolves.toBe(0);
          await checkScreen(other, 'coding-rules-read', dialect);

          await other.getByRole('link', { name: 'Acme is travel' }).click();
          await other.getByRole('heading', { level: 1, name: 'Acme is travel' }).waitFor();
          await expect(other.getByRole('form', { name: 'Coding rule' }).count()).resolves.toBe(0);
          // A person took the GL account off a record the rule coded: the rule would set it again.
          const second = await api.accountingRecords.get(r.second!.id, { single_entry: true });
          await api.review.codeLines(second.id, {
            version: second.version,
            lines: [
              {
                line_id: second.line_items[0]!.id,
                field_values: [{ field_id: department, svc_id: values.Sales!.svc_id }],
              },
            ],
          });
          const acme = (await api.codingRules.list()).items[0]!;
          const { records_changed } = await api.codingRules.preview({
            rule: { conditions: acme.conditions, actions: acme.actions },
          });
          expect(records_changed).toBe(1);
          await other.getByRole('button', { name: 'Preview' }).click();
          await other.getByText('The rule would change 1 record under review now.').waitFor();
          await expectNoSeriousAxeViolations(other, 'coding rule (bookkeeper)');

          await other.goto(`${base()}/records/${encodeURIComponent(r.coded!.id)}`);
          await other.getByRole('heading', { level: 1, name: 'Acme Travel, 120.00 USD' }).waitFor();
          await expect(other.getByRole('link', { name: 'Rule from this record' }).count()).resolves.toBe(0);

          const rule = (await api.codingRules.list()).items[0]!;
          const forced = await other.evaluate(
            async ({ id, version }) => {
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
              const rules = '/internal/v1/accounting/coding-rules';
              return {
                update: await send('PATCH', `${rules}/${id}`, { version, enabled: false }),
                apply: await send('POST', `${rules}/apply`, {}),
              };
            },
            { id: rule.id, version: rule.version },
          );
          const refused = errorBody('FORBIDDEN', {
            message: 'Your role (BOOKKEEPER) does not allow this operation.',
            details: { role: 'BOOKKEEPER', required_scopes: ['accounting.record.admin'] },
          });
          expect(forced.update).toEqual({ status: 403, body: refused });
          expect(forced.apply).toEqual({ status: 403, body: refused });
          expect(await api.codingRules.get(rule.id)).toEqual(rule);
        } finally {
          await theirs.close();
        }
        shown = undefined;

        // The admin deletes the broken rule after confirming it: it is gone from the list and from the API's.
        await page.goto(`${base()}/coding-rules`);
        await page.getByRole('button', { name: 'Delete Engineering software' }).click();
        await page.getByRole('button', { name: 'Yes, delete Engineering software' }).click();
        await page.getByRole('status').filter({ hasText: 'Engineering software is deleted.' }).waitFor();
        await eventually(() => shownRuleNames(page)).toEqual(['Acme is travel', 'Coffee and tea are meals']);
        expect((await api.codingRules.list()).items.map((x) => x.name)).toEqual([
          'Acme is travel',
          'Coffee and tea are meals',
        ]);
      },
    );
  },
  { only: 'sqlite' },
);
