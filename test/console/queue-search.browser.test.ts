import type { BrowserContext, Locator, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { RecordCreate, SvcClient } from '../../client/src/index.js';
import {
  DESKTOP,
  expectNoHorizontalOverflow,
  expectNoSeriousAxeViolations,
  newContext,
  PHONE,
  screenshotFailuresThenClose,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually, searchIds, shownRecordIds } from '../support/console-story.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

eachDialectWith(
  'review queue: the coding of each row, free-text search, every width',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let api: SvcClient;
    const ids: Record<string, string> = {};
    const base = () => `${server().url}/console`;
    const rowOf = (name: string): Locator =>
      page.getByRole('row').filter({ has: page.getByRole('checkbox', { name: `Select record ${ids[name]}` }) });
    const codingOf = async (name: string) => textOf(rowOf(name).getByRole('cell').nth(4));

    beforeAll(async () => {
      const accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      const dept = await api.fields.create({ name: 'Department', group: 'ACCOUNTING' });
      const v = Object.fromEntries(
        (
          await api.fieldValues.create(gl.svc_id, [
            { value: 'Travel', remote_id: '6100' },
            { value: 'Meals', remote_id: '6200' },
          ])
        ).items.map((x) => [x.value, x.svc_id]),
      );
      const [sales] = (await api.fieldValues.create(dept.svc_id, [{ value: 'Sales', remote_id: 'S' }])).items;
      const line = (amount: number, value: string | null) => ({
        amount: { amount, currency: 'USD' },
        field_values: value
          ? [
              { field_id: gl.svc_id, svc_id: v[value]! },
              { field_id: dept.svc_id, svc_id: sales!.svc_id },
            ]
          : [],
      });
      const record = (name: string, amount: number, lines: ReturnType<typeof line>[], extra = {}): RecordCreate => ({
        type: 'CARD_EXPENSE_POST',
        amount: { amount, currency: 'USD' },
        posted_at: '2026-06-11T09:00:00Z',
        review_status: 'REVIEW',
        vendor: { id: `v_${name}`, name },
        lines,
        ...extra,
      });
      const names = ['one', 'mixed', 'same', 'bare', 'bill'] as const;
      const created = await api.review.createRecords([
        record('Acme Travel', 20, [line(20, 'Travel')], { memo: 'Flight to Lisbon' }),
        record('Bistro Uno', 30, [line(10, 'Travel'), line(20, 'Meals')]),
        record('Cafe Due', 30, [line(10, 'Meals'), line(20, 'Meals')]),
        record('Deli Tre', 12.5, [line(12.5, null)]),
        {
          ...record('Zeta Supplies', 77, [line(77, 'Travel')]),
          type: 'BILL_EXPENSE',
          invoice_number: 'INV-77-A',
        },
      ]);
      names.forEach((name, i) => (ids[name] = created.items[i]!.id));

      const bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
      const context = await newContext(browser());
      page = await context.newPage();
      opened = { context, page };
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, bookkeeper);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });
    screenshotFailuresThenClose('queue-search', () => opened);

    it('shows each row’s coding, field by field, "mixed" where the lines differ; a bulk approve moves what was shown', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(async () => (await shownRecordIds(page)).length).toBe(5);
      await expect(page.getByRole('columnheader', { name: 'Coding' }).count()).resolves.toBe(1);
      await expect(codingOf('one')).resolves.toBe('GL Account: Travel\nDepartment: Sales');
      await expect(codingOf('mixed')).resolves.toBe('2 lines\nGL Account: mixed\nDepartment: Sales');
      await expect(codingOf('same')).resolves.toBe('2 lines\nGL Account: Meals\nDepartment: Sales');
      await expect(codingOf('bare')).resolves.toBe('Not coded');

      for (const name of ['one', 'mixed']) {
        await page.getByRole('checkbox', { name: `Select record ${ids[name]}` }).check();
      }
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('status').filter({ hasText: '2 records approved (now Ready for export).' }).waitFor();
      const stored = await api.accountingRecords.get(ids.mixed!, { single_entry: true });
      expect([
        stored.review_status,
        stored.line_items.map((l) => l.accounting_field_values[0]?.field_value_name),
      ]).toEqual(['READY_FOR_EXPORT', ['Travel', 'Meals']]);
      expect((await api.accountingRecords.get(ids.one!)).review_status).toBe('READY_FOR_EXPORT');
    });

    it('searches by invoice number, memo word, vendor, id and amount: the rows are the API’s answer', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(async () => (await shownRecordIds(page)).length).toBe(5);
      const search = page.getByRole('searchbox', { name: 'Search' });
      const cases: [string, string[]][] = [
        ['inv-77', [ids.bill!]],
        ['lisbon', [ids.one!]],
        ['cafe', [ids.same!]],
        [ids.bare!, [ids.bare!]],
        ['12.50', [ids.bare!]],
      ];
      for (const [q, expected] of cases) {
        await search.fill(q);
        await search.press('Enter');
        await eventually(() => new URL(page.url()).searchParams.get('q')).toBe(q);
        await eventually(() => shownRecordIds(page)).toEqual(expected);
        expect((await searchIds(api, { q }))[0]).toEqual(expected);
      }
      // The text stays in the box and in the address: a reload shows the same rows.
      await page.reload();
      await eventually(() => shownRecordIds(page)).toEqual([ids.bare]);
      await expect(search.inputValue()).resolves.toBe('12.50');
      await expectNoSeriousAxeViolations(page, 'queue searched');
    });

    it('shows the whole table from 1280 px to 1920 px, and on a phone every main action without sideways scroll', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(async () => (await shownRecordIds(page)).length).toBe(5);
      const region = page.getByRole('region', { name: 'Records' });
      try {
        for (const width of [1920, 1440, 1280]) {
          await page.setViewportSize({ width, height: 900 });
          await expectNoHorizontalOverflow(page, `queue at ${width} px`);
          const fit = await region.evaluate((el) => [el.scrollWidth, el.clientWidth]);
          expect(fit[0], `the table at ${width} px: ${fit[0]} wide in ${fit[1]}`).toBeLessThanOrEqual(fit[1]!);
        }

        await page.setViewportSize(PHONE);
        await expectNoHorizontalOverflow(page, 'queue on a phone');
        const reachable = async (locator: Locator) => {
          await locator.scrollIntoViewIfNeeded();
          const box = (await locator.boundingBox())!;
          return box.x >= 0 && box.x + box.width <= PHONE.width;
        };
        const main = [
          page.getByRole('searchbox', { name: 'Search' }),
          page.getByRole('button', { name: 'Apply filters' }),
          page.getByRole('button', { name: 'Approve' }),
          page.getByRole('button', { name: 'Send back' }),
          page.getByRole('checkbox', { name: `Select record ${ids.same}` }),
          rowOf('same').getByRole('link', { name: 'Cafe Due' }),
        ];
        for (const locator of main) await expect(reachable(locator), String(locator)).resolves.toBe(true);
        // The page itself never scrolled sideways to get there.
        await expect(page.evaluate(() => window.scrollX)).resolves.toBe(0);

        // A reviewer can do it there: select a row and approve it.
        await page.getByRole('checkbox', { name: `Select record ${ids.same}` }).check();
        await page.getByRole('button', { name: 'Approve' }).click();
        await page.getByRole('status').filter({ hasText: '1 record approved (now Ready for export).' }).waitFor();
        expect((await api.accountingRecords.get(ids.same!)).review_status).toBe('READY_FOR_EXPORT');
      } finally {
        await page.setViewportSize(DESKTOP);
      }
    });
  },
  { only: 'sqlite' },
);
