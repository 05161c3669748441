import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, expect, it } from 'vitest';
import type { SvcClient } from '../../client/src/index.js';
import { seed } from '../../src/cli/seed.js';
import { MERCHANTS } from '../../src/cli/seed-company.js';
import { eventually, newContext, screenshot, sharedBrowser, signIn, startConsoleServer } from '../support/browser.js';
import { actions, cell, grid, nameOf } from '../support/coding-grid.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { CEILING_MS } from '../support/wait.js';

/**
 * The measure, on the company `svc seed` makes (its chart, its people, its merchants' coded history, its
 * sample rules): code and approve the records in Prepare of a merchant the history has seen (Uber: 20 with these
 * arguments) with the grid and suggestions in at most 60 actions, and with rules too in at most 20. Every click and
 * key press a person would make is counted (actions(), a typed text one press per character), the rules' included.
 */
const SEED = ['--records', '3000', '--values', '100'];
const MERCHANT = 'Uber';
const FIELDS = ['GL Account', 'Department', 'Location', 'Class'];
const browser = sharedBrowser();

/** The seeded company's Prepare records of MERCHANT, and what suggestions offer each field of their one line. */
async function seeded(api: SvcClient) {
  const found = await api.review.search({ review_status: 'PREPARE', vendor: MERCHANT.toLowerCase(), limit: 200 });
  const records = found.items.filter((r) => r.vendor?.name === MERCHANT);
  expect(records.length).toBe(found.items.length);
  const offered = await api.suggestions.list(records.map((r) => r.id));
  const suggested = new Map(
    offered.map((s) => [s.accounting_record_id, new Map(s.suggestions.map((x) => [x.field_name, x.value]))]),
  );
  return { records, suggested };
}

/** Each record's review state and its one economic line's coding, by field name. */
async function stored(api: SvcClient, ids: readonly string[]) {
  return Promise.all(
    ids.map(async (id) => {
      const r = await api.accountingRecords.get(id, { single_entry: true });
      const values = r.line_items[0]!.accounting_field_values;
      return {
        review_status: r.review_status,
        coding: Object.fromEntries(values.map((v) => [v.field_name, v.field_value_name])),
      };
    }),
  );
}

eachDialectWith(
  'console: the coding measure on svc seed’s company',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    const contexts: BrowserContext[] = [];
    let shown: Page | undefined;
    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && shown && !shown.isClosed()) {
        await screenshot(shown, `failed-coding-measure-${dialect}-${test.task.name.slice(0, 30).replace(/\W+/g, '-')}`);
      }
    });
    afterAll(async () => {
      for (const context of contexts) await context.close();
    });

    async function company(role: 'BOOKKEEPER' | 'ACCOUNT_ADMIN') {
      const accountId = newAccountId();
      await seed(server().db, ['--account', accountId, ...SEED], () => {});
      const api = await server().apiClient(accountId);
      const context = await newContext(browser());
      contexts.push(context);
      shown = await signIn(context, `${server().url}/console`, await newUser(server().db, role, accountId));
      return { api, page: shown, ...(await seeded(api)) };
    }

    /** The grid's Prepare lines of MERCHANT: opened from the menu, the status chosen, the vendor typed. */
    async function openGrid(page: Page, act: ReturnType<typeof actions>, records: number) {
      await act.click(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Coding grid' }));
      await page.getByRole('heading', { level: 1, name: 'Coding grid' }).waitFor();
      await act.select(page.getByLabel('Status'), 'PREPARE');
      await act.click(page.getByRole('searchbox', { name: 'Vendor' }));
      await act.type(MERCHANT.toLowerCase());
      await eventually(() => grid(page).getByRole('row').count()).toBe(records + 1);
    }

    /** Accept every suggestion, save, select every row, submit and approve: what is left once the lines show. */
    async function acceptSaveApprove(page: Page, act: ReturnType<typeof actions>, records: number) {
      await act.click(cell(page, 'GL Account', MERCHANT).first());
      await act.press('Shift+A');
      await eventually(() =>
        grid(page)
          .getByRole('gridcell', { name: /: empty/ })
          .count(),
      ).toBe(0);
      await act.press('Control+s');
      await page
        .getByRole('status')
        .filter({ hasText: `${records} records saved.` })
        .waitFor();
      await act.press('Control+a');
      await page.getByText(`No change; ${records} rows selected`).waitFor();
      await act.click(page.getByRole('button', { name: 'Submit and approve selected' }));
      await page
        .getByRole('status')
        .filter({ hasText: `${records} records approved (now Ready for export).` })
        .waitFor();
    }

    const merchant = MERCHANTS.find((m) => m.name === MERCHANT)!;

    it(
      'with the grid and suggestions: the merchant’s records in Prepare coded and approved in at most 60 actions',
      { timeout: 6 * CEILING_MS },
      async () => {
        const { api, page, records, suggested } = await company('BOOKKEEPER');
        expect(records.length).toBeGreaterThanOrEqual(20);
        // Seen before: the seeded history has approved and exported records of the merchant, coded as it always is.
        for (const r of records) expect(suggested.get(r.id)?.get('GL Account')).toBe(merchant.account);
        const act = actions(page);

        await openGrid(page, act, records.length);
        // Every empty cell shows its suggestion.
        await eventually(() =>
          grid(page)
            .getByRole('gridcell', { name: /: empty, suggested / })
            .count(),
        ).toBe(records.length * FIELDS.length);
        await acceptSaveApprove(page, act, records.length);

        const after = await stored(
          api,
          records.map((r) => r.id),
        );
        expect(after).toEqual(
          records.map((r) => ({
            review_status: 'READY_FOR_EXPORT',
            coding: Object.fromEntries(FIELDS.map((f) => [f, suggested.get(r.id)!.get(f)])),
          })),
        );
        for (const a of after)
          expect([a.coding['GL Account'], a.coding.Class]).toEqual([merchant.account, merchant.class]);
        // Open the grid, Prepare, the vendor box and "uber", a cell, accept all, save, select all, approve.
        expect(act.count).toBe(12);
        expect(act.count).toBeLessThanOrEqual(60);
      },
    );

    it(
      'with rules too: the seeded rule applied from the rules page, the rest suggested, coded and approved in at most 20 actions',
      { timeout: 6 * CEILING_MS },
      async () => {
        const { api, page, records, suggested } = await company('ACCOUNT_ADMIN');
        expect(records.length).toBeGreaterThanOrEqual(20);
        const rule = (await api.codingRules.list()).items.find((r) => r.name === 'Rides are travel (Uber)')!;
        expect([rule.status, rule.enabled]).toEqual(['ACTIVE', true]);
        const act = actions(page);

        // The seeded records were imported, not ingested: the rules code them once applied.
        await act.click(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Coding rules' }));
        await act.click(page.getByRole('button', { name: 'Apply rules now' }));
        await page
          .getByRole('status')
          .filter({ hasText: /^Rules applied: [\d,]+ records changed\./ })
          .waitFor();

        await openGrid(page, act, records.length);
        // The rule coded each GL account; the other fields show their suggestions.
        await eventually(() =>
          grid(page)
            .getByRole('gridcell', { name: /: empty, suggested / })
            .count(),
        ).toBe(records.length * (FIELDS.length - 1));
        await expect(nameOf(cell(page, 'GL Account', MERCHANT).first())).resolves.toMatch(
          new RegExp(`: ${merchant.account}$`),
        );
        await acceptSaveApprove(page, act, records.length);

        const after = await stored(
          api,
          records.map((r) => r.id),
        );
        expect(after).toEqual(
          records.map((r) => ({
            review_status: 'READY_FOR_EXPORT',
            coding: Object.fromEntries(
              FIELDS.map((f) => [f, f === 'GL Account' ? merchant.account : suggested.get(r.id)!.get(f)]),
            ),
          })),
        );
        // Each record's history names the rule and its version for its GL account.
        for (const r of records) {
          const events = (await api.review.history(r.id)).items;
          const byRule = events.find((e) => e.type === 'CODED_BY_RULES');
          expect(JSON.stringify(byRule?.changes)).toContain(rule.id);
        }
        // The rules page, apply; open the grid, Prepare, the vendor box and "uber", a cell, accept all, save,
        // select all, approve.
        expect(act.count).toBe(14);
        expect(act.count).toBeLessThanOrEqual(20);
      },
    );
  },
  { only: 'sqlite' },
);
