import type { Locator, Page } from 'playwright-core';
import type { AccountingRecord, RecordCreate, SvcClient } from '../../client/src/index.js';
import type { ConsoleServer } from './browser.js';
import { newAccountId } from './context.js';

/**
 * The coding grid's browser tests (test/console/coding-grid*.browser.test.ts): a small company with history, and the
 * grid; the issue's measure runs on `svc seed`'s company (coding-grid-measure.browser.test.ts).
 */

/**
 * Every click and key press the test makes, counted (a typed text counts one press per character): the issue's
 * measure is the number of actions a person needs.
 */
export function actions(page: Page) {
  let count = 0;
  return {
    get count() {
      return count;
    },
    async click(target: Locator) {
      count++;
      await target.click();
    },
    async press(key: string) {
      count++;
      await page.keyboard.press(key);
    },
    async select(target: Locator, value: string) {
      count++;
      await target.selectOption(value);
    },
    async type(text: string) {
      count += text.length;
      await page.keyboard.type(text);
    },
  };
}

/** A company's chart and a history of coded, approved records of a few merchants (what suggestions learn from). */
export const MERCHANTS = {
  Uber: ['Travel', 'Sales'],
  Slack: ['Software', 'Engineering'],
  Starbucks: ['Meals', 'Sales'],
  Staples: ['Office Supplies', 'Operations'],
} as const;

export async function company(server: ConsoleServer) {
  const accountId = newAccountId();
  const api = await server.apiClient(accountId);
  const gl = (await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' })).svc_id;
  const department = (await api.fields.create({ name: 'Department', group: 'ACCOUNTING' })).svc_id;
  const glValues = (
    await api.fieldValues.create(
      gl,
      ['Travel', 'Meals', 'Software', 'Office Supplies'].map((value) => ({ value })),
    )
  ).items;
  const deptValues = (
    await api.fieldValues.create(
      department,
      ['Sales', 'Engineering', 'Operations'].map((value) => ({ value })),
    )
  ).items;
  const value = (name: string) => [...glValues, ...deptValues].find((v) => v.value === name)!.svc_id;
  await api.review.setRequiredCoding([gl, department]);
  const history: RecordCreate[] = Object.entries(MERCHANTS).flatMap(([merchant, [account, dept]]) =>
    [1, 2, 3].map((k) => ({
      type: 'CARD_EXPENSE_POST' as const,
      amount: { amount: 10 * k, currency: 'USD' },
      posted_at: `2026-10-0${k}T09:00:00Z`,
      review_status: 'READY_FOR_EXPORT' as const,
      vendor: { id: `v_${merchant}`, name: merchant },
      lines: [
        {
          amount: { amount: 10 * k, currency: 'USD' },
          field_values: [
            { field_id: gl, svc_id: value(account) },
            { field_id: department, svc_id: value(dept) },
          ],
        },
      ],
    })),
  );
  await api.review.createRecords(history);
  return { accountId, api, gl, department, value };
}

/** An uncoded card record in REVIEW, posted on day `day` of November (the grid shows the oldest first). */
export const uncoded = (merchant: string, amount: number, day: number): RecordCreate => ({
  type: 'CARD_EXPENSE_POST',
  amount: { amount, currency: 'USD' },
  posted_at: `2026-11-${String(day).padStart(2, '0')}T09:00:00Z`,
  review_status: 'REVIEW',
  vendor: { id: `v_${merchant.replaceAll(' ', '_')}`, name: merchant },
});

/** Each record's coding and state as the API answers them. */
export async function stored(api: SvcClient, records: readonly AccountingRecord[]) {
  return Promise.all(
    records.map(async (r) => {
      const now = await api.accountingRecords.get(r.id, { single_entry: true });
      return {
        vendor: now.vendor?.name,
        review_status: now.review_status,
        version: now.version,
        coding: now.line_items.map((l) =>
          l.accounting_field_values.map((c) => `${c.field_name}=${c.field_value_name}`),
        ),
      };
    }),
  );
}

export const grid = (page: Page) => page.getByRole('grid', { name: 'Lines to code' });
/** A field's cell on the row of a vendor (its accessible name starts with both). */
export const cell = (page: Page, field: string, vendor: string) =>
  grid(page).getByRole('gridcell', { name: new RegExp(`^${field} for ${vendor},`) });
export const nameOf = (locator: Locator) => locator.getAttribute('aria-label');

/**
 * Counts the changes of the page after which the focus was on the page's body (a Tab pressed then is the browser's,
 * and leaves the grid), with the page's CPU slowed `rate` times, so that React yields between drawing a change and
 * its passive effects as it does on a loaded machine: `stop()` gives the count and lets the CPU run again.
 */
export async function watchFocusOnBody(page: Page, rate = 8) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  await page.evaluate(() => {
    document.body.dataset.focusOnBody = '0';
    const watch = new MutationObserver(() => {
      if (document.activeElement !== document.body) return;
      document.body.dataset.focusOnBody = String(Number(document.body.dataset.focusOnBody) + 1);
    });
    watch.observe(document.getElementById('root') ?? document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
    Object.assign(window, { svcFocusWatch: watch });
  });
  return {
    /** Call it in a `finally`: the page runs at full speed again, and the count stops. */
    async stop(): Promise<number> {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await cdp.detach();
      return Number(
        await page.evaluate(() => {
          const watch: unknown = Reflect.get(window, 'svcFocusWatch');
          if (watch instanceof MutationObserver) watch.disconnect();
          return document.body.dataset.focusOnBody;
        }),
      );
    },
  };
}
