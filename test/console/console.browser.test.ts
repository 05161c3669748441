import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type {
  AccountingRecord,
  FieldValue,
  RecordCreate,
  RecordSearchQuery,
  SvcClient,
} from '../../client/src/index.js';
import { throttleKeys } from '../../src/modules/users/sign-in-throttle.js';
import { usersService } from '../../src/modules/users/users.service.js';
import {
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

const browser = sharedBrowser();

const STATE_WORDS = {
  PREPARE: 'Prepare',
  REVIEW: 'Review',
  READY_FOR_EXPORT: 'Ready for export',
  EXPORTED: 'Exported',
};
const SOURCE_WORDS = { CARD: 'Card', REIMBURSEMENT: 'Reimbursement', BILL: 'Bill' };

const person = (first: string, email: string) => ({
  id: `u_${first.toLowerCase()}`,
  email,
  first_name: first,
  last_name: 'Example',
  role: 'EMPLOYEE' as const,
  status: 'ACTIVE' as const,
});

/** The record ids the queue's table shows, in order (each row's checkbox or link names its record). */
async function shownRecordIds(page: Page): Promise<string[]> {
  const table = page.getByRole('region', { name: 'Records' }).getByRole('table');
  const links = table.getByRole('row').getByRole('link');
  const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  return hrefs.map((href) => decodeURIComponent(href.replace('/console/records/', '')));
}

/** What a reader sees of an element: its rendered text, one line per block (no blank lines between paragraphs). */
const textOf = async (locator: Locator): Promise<string> => (await locator.innerText()).replace(/\n+/g, '\n').trim();

/** expect.poll with room for a busy machine. */
const eventually = <T>(value: () => T | Promise<T>) => expect.poll(value, { timeout: 10_000 });

const rowOf = (page: Page, id: string): Locator =>
  page.getByRole('row').filter({ has: page.getByRole('checkbox', { name: `Select record ${id}` }) });

/** Every page of a search through the SDK, as the queue would walk it. */
async function searchIds(api: SvcClient, query: RecordSearchQuery): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await api.review.search({ ...query, ...(cursor ? { cursor } : {}) });
    pages.push(page.items.map((r) => r.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return pages;
}

const economicCoding = (record: AccountingRecord) =>
  record.line_items.map((line) => line.accounting_field_values.map((c) => `${c.field_name}=${c.field_value_name}`));

eachDialectWith(
  'console in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;
    let api: SvcClient;
    let accountId: string;
    let bookkeeper: { email: string; password: string; user_id: string };
    const values: Record<string, FieldValue> = {};
    let glAccount: string;
    /** The records of the flows, by role in the story. */
    const r: Record<string, AccountingRecord> = {};
    const base = () => `${server().url}/console`;

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      const department = await api.fields.create({ name: 'Department', group: 'ACCOUNTING' });
      glAccount = gl.svc_id;
      const glValues = await api.fieldValues.create(gl.svc_id, [
        { value: 'Travel', remote_id: '6100' },
        { value: 'Meals', remote_id: '6200' },
        { value: 'Software', remote_id: '6300' },
        { value: 'Trade shows', remote_id: '6500' },
      ]);
      const deptValues = await api.fieldValues.create(department.svc_id, [
        { value: 'Sales', remote_id: 'D10' },
        { value: 'Engineering', remote_id: 'D20' },
      ]);
      for (const v of [...glValues.items, ...deptValues.items]) values[v.value] = v;

      const card = (name: string, amount: number, extra: Partial<RecordCreate> = {}): RecordCreate => ({
        type: 'CARD_EXPENSE_POST',
        amount: { amount, currency: 'USD' },
        posted_at: '2026-06-11T09:00:00Z',
        review_status: 'REVIEW',
        vendor: { id: `v_${name.replaceAll(' ', '_')}`, name },
        user: person('Alice', 'alice@example.com'),
        receipts: [{ id: `rc_${amount}` }],
        ...extra,
      });
      const coded = (value: string, amount: number) => [
        { amount: { amount, currency: 'USD' }, field_values: [{ field_id: gl.svc_id, svc_id: values[value]!.svc_id }] },
      ];
      const created = await api.review.createRecords([
        card('Acme Travel', 171.75, { posted_at: '2026-06-10T08:00:00Z' }),
        card('Acme Travel', 89.1, { posted_at: '2026-06-12T08:00:00Z', lines: coded('Meals', 89.1) }),
        card('Acme Travel', 640, { posted_at: '2026-06-13T08:00:00Z' }),
        card('Acme Office', 42, { review_status: 'PREPARE' }),
        card('Blue Bottle', 12.5),
        card('Cloudy Software', 300, { user: person('Bob', 'bob@example.com'), lines: coded('Software', 300) }),
        {
          type: 'REIMBURSEMENT_EXPENSE_POST',
          amount: { amount: 55, currency: 'EUR' },
          original_amount: { amount: 60, currency: 'USD' },
          posted_at: '2026-06-14T08:00:00Z',
          review_status: 'REVIEW',
          user: person('Carol', 'carol@example.com'),
          lines: [
            { amount: { amount: 30, currency: 'EUR' }, memo: 'Taxi' },
            { amount: { amount: 25, currency: 'EUR' }, memo: 'Lunch' },
          ],
        },
        ...Array.from({ length: 12 }, (_, i) =>
          card('Zeta Supplies', 10 + i, { posted_at: `2026-05-${String(i + 10).padStart(2, '0')}T08:00:00Z` }),
        ),
      ]);
      const [a, b, c, d, e, f, g] = created.items;
      Object.assign(r, { uncoded: a!, coded: b!, stays: c!, prepare: d!, bottle: e!, cloudy: f!, twoLines: g! });
      await api.review.setRequiredCoding([gl.svc_id]);

      bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
      context = await browser().newContext({ viewport: DESKTOP });
      context.setDefaultTimeout(10_000);
      page = await context.newPage();
    });

    afterEach(async (test) => {
      // A failed step leaves a picture of where it stopped.
      if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
        await screenshot(page, `failed-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });

    afterAll(async () => {
      await context?.close();
    });

    it('sends a signed-out visitor to sign in, says a wrong password is wrong, then brings them where they were going', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(() => page.url()).toBe(`${base()}/sign-in?next=%2Fqueue`);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign in');
      await page.getByRole('status').filter({ hasText: 'Sign in to continue.' }).waitFor();
      await checkScreen(page, 'sign-in', dialect);

      const refused = page.waitForResponse(
        (res) => res.url().endsWith('/auth/session') && res.request().method() === 'POST',
      );
      await signInThroughForm(page, { email: bookkeeper.email, password: 'not the password at all' });
      const answer = await (await refused).json();
      expect(answer.error_code).toBe('INVALID_CREDENTIALS');
      const alert = page.getByRole('alert');
      await eventually(() => textOf(alert)).toBe(
        `The email or password is incorrect.\nRequest id: ${answer.request_id}`,
      );
      await checkScreen(page, 'sign-in-refused', dialect);

      await signInThroughForm(page, bookkeeper);
      await eventually(() => page.url()).toBe(`${base()}/queue`);
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
      expect(await page.getByRole('banner').textContent()).toContain(`Signed in as ${bookkeeper.email} (Bookkeeper)`);
    });

    it("shows the overview's counts, waiting records, failures and exports per day exactly as the API has them", async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
      const table = page.getByRole('table', { name: 'Records by review state and source type' });
      await table.waitFor();
      const overview = await api.review.overview();
      const count = (status: string | null, source: string | null) =>
        overview.counts
          .filter((c) => (!status || c.review_status === status) && (!source || c.source_type === source))
          .reduce((sum, c) => sum + c.count, 0);
      const expected = [
        ['Review state', 'Card', 'Reimbursement', 'Bill', 'Total'],
        ...Object.entries(STATE_WORDS).map(([status, words]) => [
          words,
          ...Object.keys(SOURCE_WORDS).map((source) => String(count(status, source))),
          String(count(status, null)),
        ]),
        ['Total', ...Object.keys(SOURCE_WORDS).map((source) => String(count(null, source))), String(count(null, null))],
      ];
      const rows = await table
        .getByRole('row')
        .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => (cell.textContent ?? '').trim())));
      expect(rows).toEqual(expected);
      expect(count('REVIEW', 'CARD')).toBe(17);
      expect(count('REVIEW', 'REIMBURSEMENT')).toBe(1);

      const waiting = page.getByRole('region', { name: 'Waiting longest' }).getByRole('link');
      expect(await waiting.allInnerTexts()).toEqual(
        overview.waiting_longest.map(
          (w) => `${w.vendor?.name ?? 'Carol Example'}, ${w.amount.amount.toFixed(2)} ${w.amount.currency}`,
        ),
      );
      expect(overview.waiting_longest).toHaveLength(5);
      await expect(
        page.getByRole('region', { name: 'Export failures' }).getByText('No record has a failed export').count(),
      ).resolves.toBe(1);

      const chart = page.getByRole('img', {
        name: 'Exports per day over the last 30 days: 0 records exported, 0 failed.',
      });
      await expect(chart.count()).resolves.toBe(1);
      await page.getByRole('button', { name: 'Show as table' }).click();
      const days = page.getByRole('table', { name: 'Records exported and failed per day (UTC)' });
      await expect(days.getByRole('row').count()).resolves.toBe(31);
      expect(overview.exports_per_day).toHaveLength(30);
      await page.getByRole('button', { name: 'Show as table' }).click();
      await checkScreen(page, 'overview', dialect);

      // An error of the API is shown in words, with its request id.
      // The page may ask for the record more than once (double- and single-entry forms): the alert shows the
      // request id of one of those answers, in words.
      const answers: { message: string; request_id: string; error_code: string }[] = [];
      const collect = async (res: { url(): string; json(): Promise<any> }) => {
        if (res.url().includes('/v3/accounting/records/rec_missing')) answers.push(await res.json());
      };
      page.on('response', collect);
      await page.goto(`${base()}/records/rec_missing`);
      const alert = page.getByRole('alert');
      await eventually(async () => {
        const text = await textOf(alert);
        return answers.some(
          (a) => text === `There is no record rec_missing in your account.\n${a.message}\nRequest id: ${a.request_id}`,
        );
      }).toBe(true);
      page.off('response', collect);
      const answer = answers[0]!;
      expect(answer.error_code).toBe('NOT_FOUND');
      await checkScreen(page, 'record-not-found', dialect);
    });

    it("filters the queue by vendor and state, sorts and pages it: the rows are exactly the API's search", async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review queue' }).click();
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
      await page.getByLabel('Vendor').fill('acme');
      await page.getByLabel('Review state').selectOption({ label: 'Review' });
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await eventually(() => page.url()).toBe(`${base()}/queue?review_status=REVIEW&vendor=acme`);
      const [acme] = await searchIds(api, { vendor: 'acme', review_status: 'REVIEW', limit: 25 });
      expect(acme).toEqual([r.uncoded!.id, r.coded!.id, r.stays!.id]);
      await eventually(() => shownRecordIds(page)).toEqual(acme);
      await page.getByRole('status').filter({ hasText: '3 records on page 1' }).waitFor();
      await checkScreen(page, 'queue', dialect);

      // Sorted by amount, descending on the second click; the URL keeps the sort.
      const amount = page.getByRole('columnheader', { name: 'Amount' });
      await amount.getByRole('button').click();
      await eventually(() => amount.getAttribute('aria-sort')).toBe('ascending');
      const [ascending] = await searchIds(api, { vendor: 'acme', review_status: 'REVIEW', sort: 'amount' });
      await eventually(() => shownRecordIds(page)).toEqual(ascending);
      await amount.getByRole('button').click();
      await eventually(() => amount.getAttribute('aria-sort')).toBe('descending');
      await eventually(() => page.url()).toBe(`${base()}/queue?review_status=REVIEW&vendor=acme&sort=-amount`);
      expect(await shownRecordIds(page)).toEqual([r.stays!.id, r.uncoded!.id, r.coded!.id]);

      // Keyset pages of 10: Next follows the cursor, Previous goes back to the page before.
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await eventually(() => page.url()).toBe(`${base()}/queue?sort=-amount`);
      await page.getByLabel('Vendor').fill('zeta');
      await page.getByLabel('Rows per page').selectOption('10');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const zeta = await searchIds(api, { vendor: 'zeta', sort: '-amount', limit: 10 });
      expect(zeta.map((p) => p.length)).toEqual([10, 2]);
      await eventually(() => shownRecordIds(page)).toEqual(zeta[0]);
      await page.getByRole('button', { name: 'Next page' }).click();
      await eventually(() => shownRecordIds(page)).toEqual(zeta[1]);
      await expect(page.getByRole('button', { name: 'Next page' }).isDisabled()).resolves.toBe(true);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await eventually(() => shownRecordIds(page)).toEqual(zeta[0]);
      await expect(page.getByRole('button', { name: 'Previous page' }).isDisabled()).resolves.toBe(true);

      // Nothing matches: the empty state says so.
      await page.getByLabel('Vendor').fill('no such vendor');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('No records match these filters.').waitFor();
    });

    it('codes a line with the type-ahead picker and saves it; j and k walk the queue page', async () => {
      await page.goto(`${base()}/queue?review_status=REVIEW&vendor=acme`);
      await eventually(() => shownRecordIds(page)).toEqual([r.uncoded!.id, r.coded!.id, r.stays!.id]);
      await rowOf(page, r.uncoded!.id).getByRole('link', { name: 'Acme Travel' }).click();
      await page.getByRole('heading', { level: 1, name: 'Acme Travel, 171.75 USD' }).waitFor();
      await expect(textOf(page.getByRole('note'))).resolves.toBe(
        'Coding required before approval\nLine 1 lacks GL Account',
      );

      const picker = page.getByRole('combobox', { name: 'GL Account for line 1' });
      await picker.fill('Tra');
      const options = page.getByRole('listbox', { name: 'Values of GL Account' }).getByRole('option');
      await eventually(() => options.allInnerTexts()).toEqual(['Trade shows · 6500', 'Travel · 6100']);
      await expect(picker.getAttribute('aria-expanded')).resolves.toBe('true');
      await checkScreen(page, 'record-picker', dialect);
      await picker.press('ArrowDown');
      await picker.press('ArrowDown');
      await picker.press('Enter');
      await expect(picker.inputValue()).resolves.toBe('Travel');
      await page.getByRole('button', { name: 'Save coding' }).click();
      await page.getByRole('status').filter({ hasText: 'Coding saved: the record is now at version 2.' }).waitFor();
      await expect(page.getByRole('note').count()).resolves.toBe(0);
      await page.getByText('Every line has the coding required for approval (GL Account).').waitFor();

      const saved = await api.accountingRecords.get(r.uncoded!.id, { single_entry: true });
      expect(saved.version).toBe(2);
      expect(economicCoding(saved)).toEqual([['GL Account=Travel']]);
      const history = page.getByRole('region', { name: 'History' }).getByRole('listitem');
      await eventually(() => textOf(history.last())).toContain('Line 1: GL Account set to Travel');
      await checkScreen(page, 'record', dialect);

      // Double and single entry: the balancing line is in the first only.
      const lines = page.getByRole('table', { name: 'Line items, double entry' }).getByRole('row');
      await expect(lines.count()).resolves.toBe(3);
      await page.getByRole('button', { name: 'Single entry' }).click();
      const single = page.getByRole('table', { name: 'Line items, single entry' }).getByRole('row');
      await eventually(() => single.allInnerTexts()).toEqual([
        'Line\tSide\tAmount\tOriginal amount\tMemo\tCoding',
        'Line 1\tDebit\t171.75 USD\t—\t—\tGL Account: Travel',
      ]);

      // Opened from the queue: j is the next record of the page, k the previous.
      await page.getByRole('heading', { level: 1 }).click();
      await page.keyboard.press('j');
      await eventually(() => page.url()).toBe(`${base()}/records/${r.coded!.id}`);
      await page.getByRole('heading', { level: 1, name: 'Acme Travel, 89.10 USD' }).waitFor();
      await page.keyboard.press('k');
      await eventually(() => page.url()).toBe(`${base()}/records/${r.uncoded!.id}`);
      await page.getByText('Keyboard shortcuts: j next record, k previous record.').waitFor();
    });

    it('says someone else changed the record when its version moved on, and reloads it', async () => {
      await page.goto(`${base()}/records/${encodeURIComponent(r.twoLines!.id)}`);
      await page.getByRole('heading', { level: 1, name: 'Carol Example, 55.00 EUR' }).waitFor();
      const current = await api.accountingRecords.get(r.twoLines!.id, { single_entry: true });
      await api.review.codeLines(r.twoLines!.id, {
        version: current.version,
        lines: [
          { line_id: current.line_items[1]!.id, field_values: [{ field_id: glAccount, svc_id: values.Meals!.svc_id }] },
        ],
      });

      const picker = page.getByRole('combobox', { name: 'GL Account for line 1' });
      await picker.fill('Trav');
      await page.getByRole('option', { name: 'Travel · 6100' }).click();
      await page.getByRole('button', { name: 'Save coding' }).click();
      const alert = page
        .getByRole('alert')
        .filter({ hasText: 'Someone else changed this record since you opened it.' });
      await alert.waitFor();
      await expect(textOf(alert)).resolves.toContain('The record is at version 2, not 1.');
      await checkScreen(page, 'record-conflict', dialect);
      await alert.getByRole('button', { name: 'Reload' }).click();
      await alert.waitFor({ state: 'detached' });
      await eventually(() => page.getByRole('combobox', { name: 'GL Account for line 2' }).inputValue()).toBe('Meals');
      await eventually(() => picker.inputValue()).toBe('');
      await expect(textOf(page.getByRole('note'))).resolves.toBe(
        'Coding required before approval\nLine 1 lacks GL Account',
      );
    });

    it('approves in bulk: a refused record says why on its row, nothing moves; then the approved ones reach a poller with their coding', async () => {
      await page.goto(`${base()}/queue?review_status=REVIEW&vendor=acme`);
      // Coded a moment ago, the first record now waits the shortest: last by updated_at.
      const [acme] = await searchIds(api, { vendor: 'acme', review_status: 'REVIEW' });
      expect(acme).toEqual([r.coded!.id, r.stays!.id, r.uncoded!.id]);
      await eventually(() => shownRecordIds(page)).toEqual(acme);
      await page.getByRole('checkbox', { name: 'Select all records on this page' }).check();
      await page.getByText('3 records selected').waitFor();
      const refused = page.waitForResponse((res) => res.url().endsWith('/review-status'));
      await page.getByRole('button', { name: 'Approve' }).click();
      const refusal = await (await refused).json();
      expect(refusal.error_code).toBe('CODING_REQUIRED');

      const summary = page.getByRole('alert');
      await eventually(() => textOf(summary)).toBe(
        "Nothing was moved: 1 of 3 selected records cannot go to Ready for export. Each one's reason is shown on its row.\n" +
          `Request id: ${refusal.request_id}`,
      );
      await expect(
        rowOf(page, r.stays!.id)
          .getByText(/^Not moved:/)
          .innerText(),
      ).resolves.toBe(
        'Not moved: Lines lack the coding the account requires before READY_FOR_EXPORT. (line 1 lacks GL Account)',
      );
      for (const id of [r.uncoded!.id, r.coded!.id]) {
        await expect(
          rowOf(page, id)
            .getByText(/^Not moved:/)
            .count(),
        ).resolves.toBe(0);
      }
      expect((await api.accountingRecords.get(r.uncoded!.id)).review_status).toBe('REVIEW');
      await checkScreen(page, 'queue-refused', dialect);

      await page.getByRole('checkbox', { name: `Select record ${r.stays!.id}` }).uncheck();
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('status').filter({ hasText: '2 records approved (now Ready for export).' }).waitFor();
      await eventually(() => shownRecordIds(page)).toEqual([r.stays!.id]);
      const [left] = await searchIds(api, { vendor: 'acme', review_status: 'REVIEW' });
      expect(left).toEqual([r.stays!.id]);

      // The poller: card and reimbursement records by review_status=READY_FOR_EXPORT.
      const ready = await api.accountingRecords.query({ review_status: 'READY_FOR_EXPORT', single_entry: true });
      expect(ready.items.map((x) => [x.id, economicCoding(x)])).toEqual([
        [r.coded!.id, [['GL Account=Meals']]],
        [r.uncoded!.id, [['GL Account=Travel']]],
      ]);
    });

    it('shows an export failure reported through the API in the failed filter and on the record; fixed and re-approved', async () => {
      await api.accountingRecords.reportExportResults([
        { accounting_record_id: r.uncoded!.id, failure: { error_message: 'GL account 6100 is closed for posting' } },
        {
          accounting_record_id: r.coded!.id,
          success: { reference_id: 'JE-1042', deep_link_url: 'https://erp.example.invalid/je/1042' },
        },
      ]);

      await page.goto(`${base()}/`);
      const failures = page.getByRole('region', { name: 'Export failures' });
      await failures.getByText('1 record whose last export failed').waitFor();
      await expect(
        page.getByRole('img', { name: 'Exports per day over the last 30 days: 1 record exported, 1 failed.' }).count(),
      ).resolves.toBe(1);
      await failures.getByRole('link', { name: 'Show failed exports in the review queue' }).click();
      await eventually(() => page.url()).toBe(`${base()}/queue?has_export_failure=true`);
      await expect(page.getByLabel('Failed exports only').isChecked()).resolves.toBe(true);
      const [failed] = await searchIds(api, { has_export_failure: true });
      expect(failed).toEqual([r.uncoded!.id]);
      await eventually(() => shownRecordIds(page)).toEqual(failed);
      await expect(rowOf(page, r.uncoded!.id).getByRole('cell').nth(7).innerText()).resolves.toBe(
        'Failed GL account 6100 is closed for posting',
      );
      await checkScreen(page, 'queue-failed', dialect);

      await rowOf(page, r.uncoded!.id).getByRole('link').click();
      const exported = page.getByRole('region', { name: 'Last export' });
      await exported.getByText('The ERP said: GL account 6100 is closed for posting').waitFor();
      await expect(exported.getByText(/^Export failed on \d+ \w+ \d{4}, \d\d:\d\d UTC\.$/).count()).resolves.toBe(1);
      await checkScreen(page, 'record-failed', dialect);

      // Fix: re-code, approve; send back and approve again.
      const picker = page.getByRole('combobox', { name: 'GL Account for line 1' });
      await picker.fill('mea');
      await page.getByRole('option', { name: 'Meals · 6200' }).click();
      await eventually(() => page.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Save coding' }).click();
      await page.getByRole('status').filter({ hasText: 'Coding saved: the record is now at version 5.' }).waitFor();
      await page.getByRole('button', { name: 'Approve' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Approved: the record is now Ready for export (version 6).' })
        .waitFor();
      await expect(page.getByRole('combobox').count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Send back' }).click();
      await page.getByRole('status').filter({ hasText: 'Moved: the record is now Review (version 7).' }).waitFor();
      await page.getByRole('button', { name: 'Approve' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Approved: the record is now Ready for export (version 8).' })
        .waitFor();
      const history = page.getByRole('region', { name: 'History' }).getByRole('listitem');
      await eventually(() => history.count()).toBe(8);
      await expect(textOf(history.nth(3))).resolves.toMatch(
        /^Export failed version 4, .* by API client cli_\w+\nReady for export → Review\nThe ERP said: GL account 6100 is closed for posting$/,
      );
      await expect(textOf(history.nth(4))).resolves.toContain('Line 1: GL Account: Travel → Meals');

      const ready = await api.accountingRecords.query({ review_status: 'READY_FOR_EXPORT', single_entry: true });
      expect(ready.items.map((x) => [x.id, economicCoding(x)])).toEqual([[r.uncoded!.id, [['GL Account=Meals']]]]);

      // Bulk send back from the queue, then approve again there.
      await page.goto(`${base()}/queue?review_status=READY_FOR_EXPORT`);
      await eventually(() => shownRecordIds(page)).toEqual([r.uncoded!.id]);
      await page.getByRole('checkbox', { name: `Select record ${r.uncoded!.id}` }).check();
      await page.getByRole('button', { name: 'Send back' }).click();
      await page.getByRole('status').filter({ hasText: '1 record sent back to Review.' }).waitFor();
      await page.getByText('No records match these filters.').waitFor();
      expect((await api.accountingRecords.get(r.uncoded!.id)).review_status).toBe('REVIEW');
      await page.getByLabel('Review state').selectOption({ label: 'Review' });
      await page.getByLabel('Vendor').fill('Acme Travel');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await eventually(() => shownRecordIds(page)).toEqual([r.stays!.id, r.uncoded!.id]);
      await page.getByRole('checkbox', { name: `Select record ${r.uncoded!.id}` }).check();
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('status').filter({ hasText: '1 record approved (now Ready for export).' }).waitFor();
      expect((await api.accountingRecords.get(r.uncoded!.id)).review_status).toBe('READY_FOR_EXPORT');

      // The exported one links to the ERP.
      await page.goto(`${base()}/records/${encodeURIComponent(r.coded!.id)}`);
      const link = page.getByRole('region', { name: 'Last export' }).getByRole('link', { name: 'Open in the ERP' });
      await expect(link.getAttribute('href')).resolves.toBe('https://erp.example.invalid/je/1042');
      await page.getByText('ERP reference: JE-1042').waitFor();
    });

    it('gives a read-only user no way to change anything, and the server refuses a forced move with 403', async () => {
      const reader = await newUser(server().db, 'READ_ONLY', accountId);
      const readOnly = await browser().newContext({ viewport: DESKTOP });
      readOnly.setDefaultTimeout(10_000);
      try {
        const other = await readOnly.newPage();
        await other.goto(`${base()}/sign-in`);
        await signInThroughForm(other, reader);
        await other.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
        await other.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review queue' }).click();
        await eventually(() => shownRecordIds(other)).toEqual((await searchIds(api, { limit: 25 }))[0]);
        await expect(other.getByRole('checkbox').count()).resolves.toBe(2);
        await expect(other.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
        await expect(other.getByRole('button', { name: 'Send back' }).count()).resolves.toBe(0);

        await other.goto(`${base()}/records/${encodeURIComponent(r.stays!.id)}`);
        await other.getByRole('heading', { level: 1, name: 'Acme Travel, 640.00 USD' }).waitFor();
        await other.getByText('Your role can see the coding (in the line items) but not change it.').waitFor();
        await expect(other.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);
        await expect(other.getByRole('combobox').count()).resolves.toBe(0);
        await checkScreen(other, 'record-read-only', dialect);

        const forced = await other.evaluate(async (id) => {
          const session = await (await fetch('/auth/session')).json();
          const move = (headers: Record<string, string>) =>
            fetch('/internal/v1/accounting/records/review-status', {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...headers },
              body: JSON.stringify({ review_status: 'READY_FOR_EXPORT', records: [{ id }] }),
            }).then(async (res) => ({ status: res.status, body: await res.json() }));
          return {
            withToken: await move({ 'x-csrf-token': session.csrf_token }),
            withoutToken: await move({}),
          };
        }, r.stays!.id);
        expect(forced.withToken.status).toBe(403);
        expect(forced.withToken.body).toMatchObject({
          error_code: 'FORBIDDEN',
          message: 'Your role (READ_ONLY) does not allow this operation.',
        });
        expect(forced.withoutToken.status).toBe(403);
        expect((await api.accountingRecords.get(r.stays!.id)).review_status).toBe('REVIEW');
      } finally {
        await readOnly.close();
      }
    });

    it('signs out: the session ends, and every page then sends you to sign in', async () => {
      await page.goto(`${base()}/`);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await eventually(() => page.url()).toBe(`${base()}/sign-in?signed_out=1`);
      await page.getByRole('status').filter({ hasText: 'You are signed out.' }).waitFor();
      expect(await page.evaluate(async () => (await fetch('/auth/session')).status)).toBe(401);

      await page.goto(`${base()}/records/${encodeURIComponent(r.uncoded!.id)}`);
      await eventually(() => page.url()).toBe(
        `${base()}/sign-in?next=${encodeURIComponent(`/records/${encodeURIComponent(r.uncoded!.id)}`)}`,
      );
      await page.goto(`${base()}/`);
      await eventually(() => page.url()).toBe(`${base()}/sign-in`);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    });

    it('sets a password from a one-time link, then signs in with it; a throttled sign-in says for how long', async () => {
      const email = `new.${dialect}@example.com`;
      const link = await usersService.create(server().db, { accountId, email, role: 'BOOKKEEPER' });
      await page.goto(`${base()}/set-password#token=${encodeURIComponent(link.token)}`);
      await page.getByRole('heading', { level: 1, name: 'Set your password' }).waitFor();
      // The token is taken out of the address bar (and the history) once read.
      expect(page.url()).toBe(`${base()}/set-password`);
      await checkScreen(page, 'set-password', dialect);

      await page.getByLabel('New password', { exact: true }).fill('a long enough password');
      await page.getByLabel('Confirm new password').fill('a different password');
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByRole('alert').filter({ hasText: 'The two passwords do not match.' }).waitFor();

      await page.getByLabel('Confirm new password').fill('a long enough password');
      await page.getByRole('button', { name: 'Set password' }).click();
      await eventually(() => page.url()).toBe(`${base()}/sign-in?password=set`);
      await page.getByRole('status').filter({ hasText: 'Your password is set. Sign in with it.' }).waitFor();
      await signInThroughForm(page, { email, password: 'a long enough password' });
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await eventually(() => page.url()).toBe(`${base()}/sign-in?signed_out=1`);

      // The link worked once.
      await page.goto(`${base()}/set-password#token=${encodeURIComponent(link.token)}`);
      await page.getByLabel('New password', { exact: true }).fill('another long password');
      await page.getByLabel('Confirm new password').fill('another long password');
      await page.getByRole('button', { name: 'Set password' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: 'This password link is unknown, already used or expired; ask for a new one.' })
        .filter({ hasText: /Request id: \S+/ })
        .waitFor();

      await page.goto(`${base()}/sign-in`);
      // The first failures are answered as wrong (sign-in-throttle.test.ts drives the delays that follow).
      for (let attempt = 1; attempt <= 2; attempt++) {
        const answered = page.waitForResponse(
          (res) => res.url().endsWith('/auth/session') && res.request().method() === 'POST',
        );
        await signInThroughForm(page, { email, password: `wrong password ${attempt}` });
        const body = await (await answered).json();
        expect(body.error_code).toBe('INVALID_CREDENTIALS');
        await page
          .getByRole('alert')
          .filter({ hasText: `Request id: ${body.request_id}` })
          .waitFor();
      }
      // As after many more from this browser's address: sign-in is refused for 15 minutes, the right password too.
      await server()
        .db.direct.insertInto('sign_in_throttles')
        .values({
          throttle_key: throttleKeys.password(email, '127.0.0.1').pair.hash,
          failures: 15,
          blocked_until: Date.now() * 1000 + 900_000_000,
          updated_at: Date.now() * 1000,
        })
        .onConflict((oc) =>
          oc.column('throttle_key').doUpdateSet({ failures: 15, blocked_until: Date.now() * 1000 + 900_000_000 }),
        )
        .execute();
      const answered = page.waitForResponse(
        (res) => res.url().endsWith('/auth/session') && res.request().method() === 'POST',
      );
      await signInThroughForm(page, { email, password: 'a long enough password' });
      const body = await (await answered).json();
      expect(body.error_code).toBe('SIGN_IN_LOCKED');
      const alert = page.getByRole('alert').filter({ hasText: `Request id: ${body.request_id}` });
      expect(await textOf(alert)).toBe(
        `Too many failed sign-in attempts. Signing in is blocked for ${Math.ceil(body.details.retry_after_seconds / 60)} minutes; try again later.\n` +
          `Request id: ${body.request_id}`,
      );
      await eventually(() => page.url()).toBe(`${base()}/sign-in`);
    });
  },
  { only: 'sqlite' },
);
