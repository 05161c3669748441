import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AccountingRecord, SvcClient } from '../../client/src/index.js';
import {
  checkScreen,
  eventually,
  newContext,
  sharedBrowser,
  signIn,
  startConsoleServer,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

const codingOf = (record: AccountingRecord) =>
  record.line_items.map((line) => line.accounting_field_values.map((c) => `${c.field_name}=${c.field_value_name}`));

eachDialectWith(
  'console: coding suggestions on the record page',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;
    let api: SvcClient;
    let base: string;
    const ids: Record<string, string> = {};

    /** A card expense of vendor Uber in REVIEW (or as told), one uncoded line: the history speaks for it. */
    const uberRecord = async (reviewStatus: 'PREPARE' | 'REVIEW' = 'REVIEW') =>
      (
        await api.review.createRecords([
          {
            type: 'CARD_EXPENSE_POST',
            review_status: reviewStatus,
            amount: { amount: 42.5, currency: 'USD' },
            posted_at: '2026-11-20T09:00:00Z',
            vendor: { id: 'v_uber', name: 'Uber' },
          },
        ])
      ).items[0]!.id;

    beforeAll(async () => {
      const accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      const department = await api.fields.create({ name: 'Department', group: 'ACCOUNTING' });
      const {
        items: [travel, meals],
      } = await api.fieldValues.create(gl.svc_id, [
        { value: '6010 Travel', remote_id: '6010' },
        { value: '6200 Meals', remote_id: '6200' },
      ]);
      const {
        items: [sales],
      } = await api.fieldValues.create(department.svc_id, [{ value: 'Sales' }, { value: 'Support' }]);
      // The approved history: Uber coded Travel and Sales three times, once Meals (older).
      const approved = (day: number, glValue: string) => ({
        type: 'CARD_EXPENSE_POST' as const,
        review_status: 'READY_FOR_EXPORT' as const,
        amount: { amount: 30, currency: 'USD' },
        posted_at: `2026-10-${String(day).padStart(2, '0')}T12:00:00Z`,
        vendor: { id: 'v_uber', name: 'Uber' },
        lines: [
          {
            amount: { amount: 30, currency: 'USD' },
            field_values: [
              { field_id: gl.svc_id, svc_id: glValue },
              { field_id: department.svc_id, svc_id: sales!.svc_id },
            ],
          },
        ],
      });
      await api.review.createRecords([
        approved(1, meals!.svc_id),
        approved(2, travel!.svc_id),
        approved(3, travel!.svc_id),
        approved(4, travel!.svc_id),
      ]);
      ids.uber = await uberRecord();
      ids.conflict = await uberRecord('PREPARE');
      // Nothing in the history is like this one: another type, no vendor.
      ids.none = (
        await api.review.createRecords([
          {
            type: 'REIMBURSEMENT_EXPENSE_POST',
            review_status: 'REVIEW',
            amount: { amount: 12, currency: 'USD' },
            posted_at: '2026-11-20T09:00:00Z',
          },
        ])
      ).items[0]!.id;
      base = `${server().url}/console`;
      context = await newContext(browser());
      page = await signIn(context, base, await newUser(server().db, 'BOOKKEEPER', accountId));
    });

    afterAll(async () => {
      await context?.close();
    });

    it('shows each empty cell’s suggestion with its reason; one is accepted into the form and saved, then all the others at once', async () => {
      const suggested = await api.suggestions.get(ids.uber!);
      expect(suggested.suggestions.map((s) => [s.field_name, s.value, s.confidence, s.reason])).toEqual([
        ['GL Account', '6010 Travel', 0.75, '3 of the last 4 records of vendor Uber were coded 6010 Travel'],
        ['Department', 'Sales', 1, '4 of the last 4 records of vendor Uber were coded Sales'],
      ]);
      // The record's answer carries its suggestions: opening the page asks for them no more.
      const asked: string[] = [];
      const onRequest = (request: { url(): string }) => {
        if (request.url().includes('/suggestions')) asked.push(request.url());
      };
      page.on('request', onRequest);
      await page.goto(`${base}/records/${ids.uber}`);
      const gl = page.getByRole('button', { name: 'Suggested: 6010 Travel for GL Account on line 1 (75%)' });
      await gl.waitFor();
      page.off('request', onRequest);
      expect(asked).toEqual([]);
      const why = '75% confident: 3 of the last 4 records of vendor Uber were coded 6010 Travel';
      await expect(gl.getAttribute('title')).resolves.toBe(why);
      const describedBy = await gl.getAttribute('aria-describedby');
      await expect(textOf(page.locator(`[id="${describedBy}"]`))).resolves.toBe(why);
      const dept = page.getByRole('button', { name: 'Suggested: Sales for Department on line 1 (100%)' });
      await dept.waitFor();
      await page.getByText('100% confident: 4 of the last 4 records of vendor Uber were coded Sales').waitFor();
      await checkScreen(page, 'record-suggestions', dialect);

      // One click: the value is in the form, unsaved, as a pick would be.
      await gl.click();
      await eventually(() => page.getByRole('combobox', { name: 'GL Account for line 1' }).inputValue()).toBe(
        '6010 Travel',
      );
      await gl.waitFor({ state: 'detached' });
      await page.getByText('Unsaved changes on 1 line').waitFor();
      expect((await api.accountingRecords.get(ids.uber!)).version).toBe(1);
      await eventually(() => page.getByRole('button', { name: 'Accept all suggestions' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Save coding' }).click();
      await page.getByText('Coding saved: the record is now at version 2.').waitFor();
      const saved = await api.accountingRecords.get(ids.uber!, { single_entry: true });
      expect([saved.version, codingOf(saved)]).toEqual([2, [['GL Account=6010 Travel']]]);

      // The one left, accepted with all the others in one action.
      await dept.waitFor();
      await page.getByRole('button', { name: 'Accept all suggestions' }).click();
      await page.getByText('1 suggestion accepted: the record is now at version 3.').waitFor();
      const accepted = await api.accountingRecords.get(ids.uber!, { single_entry: true });
      expect([accepted.version, codingOf(accepted)]).toEqual([3, [['GL Account=6010 Travel', 'Department=Sales']]]);
      const history = await api.review.history(ids.uber!);
      const coded = history.items.filter((e) => e.type === 'CODED').at(-1)!;
      expect(coded.changes).toMatchObject({
        accepted_suggestions: [{ signal: 'VENDOR', reason: '4 of the last 4 records of vendor Uber were coded Sales' }],
      });
      // Nothing left to suggest: no suggestion, no button.
      await eventually(() => page.getByRole('button', { name: /^Suggested: / }).count()).toBe(0);
      await expect(page.getByRole('button', { name: 'Accept all suggestions' }).count()).resolves.toBe(0);
      await eventually(() => page.getByRole('combobox', { name: 'Department for line 1' }).inputValue()).toBe('Sales');
    });

    it('accepting all at a version someone else moved on is a conflict, and changes nothing', async () => {
      await page.goto(`${base}/records/${ids.conflict}`);
      await page.getByRole('button', { name: 'Suggested: Sales for Department on line 1 (100%)' }).waitFor();
      await api.review.moveRecords({ review_status: 'REVIEW', records: [{ id: ids.conflict!, version: 1 }] });
      await page.getByRole('button', { name: 'Accept all suggestions' }).click();
      const alert = page
        .getByRole('alert')
        .filter({ hasText: 'Someone else changed this record since you opened it.' });
      await alert.waitFor();
      const record = await api.accountingRecords.get(ids.conflict!, { single_entry: true });
      expect([record.version, codingOf(record)]).toEqual([2, [[]]]);
      await alert.getByRole('button', { name: 'Reload (discard mine)' }).click();
      await alert.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Suggested: Sales for Department on line 1 (100%)' }).waitFor();
    });

    it('shows nothing when the history suggests nothing', async () => {
      expect((await api.suggestions.get(ids.none!)).suggestions).toEqual([]);
      await page.goto(`${base}/records/${ids.none}`);
      await page.getByRole('combobox', { name: 'GL Account for line 1' }).waitFor();
      await expect(page.getByRole('button', { name: /^Suggested: / }).count()).resolves.toBe(0);
      await expect(page.getByRole('button', { name: 'Accept all suggestions' }).count()).resolves.toBe(0);
    });
  },
  { only: 'sqlite' },
);
