import type { Locator, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { AccountingRecord, SvcClient } from '../../client/src/index.js';
import { checkScreen, sharedBrowser, startConsoleServer, textOf } from '../support/browser.js';
import { consoleStory, eventually, searchIds, shownRecordIds } from '../support/console-story.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

const rowOf = (page: Page, id: string): Locator =>
  page.getByRole('row').filter({ has: page.getByRole('checkbox', { name: `Select record ${id}` }) });
const economicCoding = (record: AccountingRecord) =>
  record.line_items.map((line) => line.accounting_field_values.map((c) => `${c.field_name}=${c.field_value_name}`));
eachDialectWith(
  'console in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    const story = consoleStory(server, dialect, browser, { signedIn: true });
    const { r, values, base } = story;
    let page: Page;
    let api: SvcClient;
    let glAccount: string;
    beforeAll(() => {
      ({ page, api, glAccount } = story.opened());
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
      await eventually(() => picker.inputValue()).toBe('Travel');
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
      await alert.getByRole('button', { name: 'Keep mine' }).click();
      await alert.waitFor({ state: 'detached' });
      await eventually(() => page.getByRole('combobox', { name: 'GL Account for line 2' }).inputValue()).toBe('Meals');
      // The unsaved pick is the user's draft: it comes back over the current version, which it says changed.
      await page
        .getByText('The record changed since this draft was made (version 1 then, version 2 now)', { exact: false })
        .waitFor();
      await expect(picker.inputValue()).resolves.toBe('Travel');
      await page.getByRole('button', { name: 'Discard changes' }).click();
      await eventually(() => picker.inputValue()).toBe('');
      await expect(textOf(page.getByRole('note'))).resolves.toBe(
        'Coding required before approval\nLine 1 lacks GL Account',
      );
    });

    it('approves in bulk: a refused record is listed with its reason, nothing moves; going on without it, the approved ones reach a poller with their coding', async () => {
      await page.goto(`${base()}/queue?review_status=REVIEW&vendor=acme`);
      // Coded a moment ago, the first record now waits the shortest: last by updated_at.
      const [acme] = await searchIds(api, { vendor: 'acme', review_status: 'REVIEW' });
      expect(acme).toEqual([r.coded!.id, r.stays!.id, r.uncoded!.id]);
      await eventually(() => shownRecordIds(page)).toEqual(acme);
      await page.getByRole('checkbox', { name: 'Select all records on this page' }).check();
      await page.getByText('3 records selected').waitFor();
      await page.getByRole('button', { name: 'Approve' }).click();

      // The server's allowed moves decide: the refused record is listed in words, and nothing has moved yet.
      const panel = page.getByRole('region', { name: /^Nothing has moved yet/ });
      await eventually(() => textOf(panel.getByRole('heading'))).toBe(
        'Nothing has moved yet: 1 selected record of 3 cannot be approved.',
      );
      await expect(panel.getByRole('listitem').allInnerTexts()).resolves.toEqual([
        `Acme Travel ${r.stays!.id}: It lacks the coding required before approval: line 1 needs GL Account.`,
      ]);
      expect((await api.accountingRecords.get(r.uncoded!.id)).review_status).toBe('REVIEW');
      await checkScreen(page, 'queue-refused', dialect);

      await panel.getByRole('button', { name: 'Go on without these' }).click();
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
      await expect(rowOf(page, r.uncoded!.id).getByRole('cell').nth(8).innerText()).resolves.toBe(
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
  },
  { only: 'sqlite' },
);
