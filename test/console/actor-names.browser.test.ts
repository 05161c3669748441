import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '../../client/src/index.js';
import { codingRulesService } from '../../src/modules/coding-rules/coding-rules.service.js';
import {
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signIn,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually } from '../support/console-story.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();
const GONE = 'usr_gone0000000000000000000000';

/** Who did each entry of the audit log, as a reader sees it: action | by. */
const auditRows = (page: Page) =>
  page
    .getByRole('table', { name: 'Administrative actions on the account, newest first' })
    .getByRole('row')
    .evaluateAll((trs) =>
      trs.flatMap((tr) => {
        const cells = [...tr.querySelectorAll('th, td')].map((c) => (c as HTMLElement).innerText.trim());
        return tr.querySelector('td') ? [`${cells[1]} | ${cells[2]}`] : [];
      }),
    );

eachDialectWith(
  'names wherever a person acted: the audit log, a coding rule and its history',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let api: SvcClient;
    let accountId: string;
    let bob: Awaited<ReturnType<typeof newUser>>;
    let ruleId: string;
    const base = () => `${server().url}/console`;

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      const [travel] = (await api.fieldValues.create(gl.svc_id, [{ value: 'Travel', remote_id: '6100' }])).items;
      bob = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      // Bob saves a rule; a user the account no longer has (an id of no user) changes it.
      const as = (userId: string) => ({
        accountId,
        actor: { type: 'user' as const, id: userId },
        address: null,
        requestId: null,
      });
      const rule = await server().db.write((ex) =>
        codingRulesService.create(ex, as(bob.user_id), {
          name: 'Taxis are travel',
          conditions: { vendor_name: { operator: 'CONTAINS', value: 'Taxi' } },
          actions: { field_values: [{ field_id: gl.svc_id, svc_id: travel!.svc_id }] },
        }),
      );
      ruleId = rule.id;
      await server().db.write((ex) => codingRulesService.update(ex, as(GONE), ruleId, { version: 1, name: 'Cabs' }));

      const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      const context = await newContext(browser());
      page = await signIn(context, base(), admin);
      opened = { context, page };
    });
    screenshotFailuresThenClose('actor-names', () => opened);

    it('names the user who acted in the audit log, and says so of an id the account has no user for', async () => {
      await page.goto(`${base()}/audit`);
      await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
      await eventually(() => auditRows(page)).toEqual([
        'User created | Operator (svc) svc-cli',
        `Coding rule updated | A user no longer in the account ${GONE}`,
        `Coding rule created | ${bob.email}`,
        'User created | Operator (svc) svc-cli',
        'Api client created | Operator (svc) svc-cli',
      ]);
    });

    it('names who saved a rule and each of its versions', async () => {
      await page.goto(`${base()}/coding-rules/${encodeURIComponent(ruleId)}`);
      await page.getByRole('heading', { level: 1, name: 'Cabs' }).waitFor();
      await page.getByText(`by a user no longer in the account (${GONE})`, { exact: false }).first().waitFor();
      const history = page.getByRole('region', { name: 'History' }).locator('ol > li > p');
      await eventually(() =>
        history.evaluateAll((ps) => ps.map((p) => (p as HTMLElement).innerText.replace(/, .* by /, ' by '))),
      ).toEqual([`Version 2 by a user no longer in the account (${GONE})`, `Version 1 by ${bob.email}`]);
      // No user id is shown where a name is known.
      expect(await page.getByText(bob.user_id).count()).toBe(0);
    });
  },
  { only: 'sqlite' },
);
