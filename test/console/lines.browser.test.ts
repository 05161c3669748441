import type { BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '../../client/src/index.js';
import {
  API_SCOPES,
  checkScreen,
  eventually,
  newContext,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
} from '../support/browser.js';
import { openScreen } from '../support/console-seeded.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

async function signedInPage(context: BrowserContext, base: string, user: { email: string; password: string }) {
  const page = await context.newPage();
  await page.goto(`${base}/sign-in`);
  await signInThroughForm(page, user);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return page;
}

/** The focused element, as its tag and text: where a keyboard user is. */
const focusedText = (page: Page) =>
  page.evaluate(() => `${document.activeElement?.tagName ?? ''} ${document.activeElement?.textContent?.trim() ?? ''}`);

/** A card expense in REVIEW, in USD, of these lines ([amount, memo] each): its id. */
async function reviewRecord(api: SvcClient, lines: [number, string][]): Promise<string> {
  const created = await api.review.createRecords([
    {
      type: 'CARD_EXPENSE_POST',
      review_status: 'REVIEW',
      amount: { amount: lines.reduce((sum, [amount]) => sum + amount, 0), currency: 'USD' },
      posted_at: '2026-11-20T09:00:00Z',
      lines: lines.map(([amount, memo]) => ({ amount: { amount, currency: 'USD' }, memo })),
    },
  ]);
  return created.items[0]!.id;
}

/** The economic lines as the API answers them: [amount, memo] each. */
async function linesOf(api: SvcClient, id: string) {
  const record = await api.accountingRecords.get(id, { single_entry: true });
  return { version: record.version, lines: record.line_items.map((l) => [l.amount.amount, l.memo]) };
}

eachDialectWith(
  'console: split and merge a record’s lines in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;
    let api: SvcClient;
    let accountId: string;

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId, [...API_SCOPES]);
      // A field to code the lines with (unsaved coding holds a split back).
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      await api.fieldValues.create(gl.svc_id, [{ value: 'Travel', remote_id: '6100' }]);
      context = await newContext(browser());
      page = await signedInPage(
        context,
        `${server().url}/console`,
        await newUser(server().db, 'BOOKKEEPER', accountId),
      );
    });

    afterAll(async () => {
      await context?.close();
    });

    it('a bookkeeper splits a line into parts that must add up, then merges them back; the API and the history agree', async () => {
      const id = await reviewRecord(api, [[100, 'Team dinner']]);
      // Every region of the page drawn first: a section still loading above the lines (the coding) would move the
      // button between the mouse's press and its release, and the click would be lost.
      await openScreen(page, `${server().url}/console/records/${id}`, /100\.00 USD/);
      const section = page.getByRole('region', { name: 'Split and merge lines' });
      await section.getByRole('button', { name: 'Split line 1' }).click();
      const form = page.getByRole('form', { name: 'Split line 1 (100.00 USD)' });
      await eventually(() => form.getByLabel('Part 1 amount (USD)').inputValue()).toBe('50.00');
      expect(await form.getByLabel('Part 2 amount (USD)').inputValue()).toBe('50.00');

      // Parts that do not add up cannot be sent.
      await form.getByLabel('Part 1 amount (USD)').fill('60');
      await form.getByText('The parts exceed the line by 10.00 USD.').waitFor();
      expect(await form.getByRole('button', { name: 'Split line 1' }).isDisabled()).toBe(true);
      await form.getByLabel('Part 2 amount (USD)').fill('30');
      await form.getByText('Left to assign: 10.00 USD.').waitFor();
      await form.getByRole('button', { name: 'Add a part' }).click();
      await eventually(() => form.getByLabel('Part 3 amount (USD)').inputValue()).toBe('10.00');
      await form.getByText('The parts add up to the line.').waitFor();
      await checkScreen(page, 'record-split', dialect);
      await form.getByRole('button', { name: 'Split line 1' }).click();
      await page.getByText('Line 1 split in 3: the record is now at version 2.').waitFor();
      expect(await linesOf(api, id)).toEqual({
        version: 2,
        lines: [
          [60, 'Team dinner'],
          [30, 'Team dinner'],
          [10, 'Team dinner'],
        ],
      });

      // Merge two of them back.
      await section.getByLabel('Select line 2 to merge').check();
      await section.getByLabel('Select line 3 to merge').check();
      await section.getByRole('button', { name: 'Merge the 2 selected lines' }).click();
      await page.getByText('2 lines merged into one: the record is now at version 3.').waitFor();
      // The merge button, disabled with no selection left, does not keep the focus: the section's heading has it.
      expect(await focusedText(page)).toBe('H2 Split and merge lines');
      expect(await linesOf(api, id)).toEqual({
        version: 3,
        lines: [
          [60, 'Team dinner'],
          [40, 'Team dinner'],
        ],
      });
      const history = await api.review.history(id);
      expect(history.items.map((h) => h.type)).toEqual(expect.arrayContaining(['SPLIT', 'MERGED']));
      // The page shows the same lines in its line items table.
      const shown = await page
        .getByRole('table', { name: 'Line items, double entry' })
        .getByRole('row')
        .allInnerTexts();
      expect(shown.filter((row) => row.startsWith('Line ')).length).toBe(2);
    });

    it('someone else changing the record first: the merge says so and changes nothing', async () => {
      const id = await reviewRecord(api, [
        [12, 'Taxi'],
        [8, 'Tip'],
      ]);
      await openScreen(page, `${server().url}/console/records/${id}`, /20\.00 USD/);
      const section = page.getByRole('region', { name: 'Split and merge lines' });
      await section.getByLabel('Select line 1 to merge').check();
      await section.getByLabel('Select line 2 to merge').check();
      // Another session merges first.
      await api.review.mergeLines(id, {
        version: 1,
        line_ids: (await api.accountingRecords.get(id, { single_entry: true })).line_items.map((l) => l.id),
      });
      await section.getByRole('button', { name: 'Merge the 2 selected lines' }).click();
      await page.getByText('Someone else changed this record since you opened it.').waitFor();
      expect((await linesOf(api, id)).version).toBe(2);
      // The refused merge keeps what the user chose (only a merge made clears it).
      expect(await section.getByLabel('Select line 1 to merge').isChecked()).toBe(true);
      expect(await section.getByLabel('Select line 2 to merge').isChecked()).toBe(true);

      // A split refused the same way keeps its form and the parts as typed, to try again once reloaded.
      await section.getByRole('button', { name: 'Split line 1' }).click();
      const form = page.getByRole('form', { name: 'Split line 1 (12.00 USD)' });
      await form.getByLabel('Part 1 amount (USD)').fill('7');
      await form.getByLabel('Part 2 amount (USD)').fill('5');
      const answered = page.waitForResponse(
        (response) => new URL(response.url()).pathname.endsWith('/split') && response.request().method() === 'POST',
      );
      await form.getByRole('button', { name: 'Split line 1' }).click();
      expect((await answered).status()).toBe(409);
      // Busy from the click until the refusal is drawn: enabled again once it is.
      await eventually(() => form.getByRole('button', { name: 'Split line 1' }).isEnabled()).toBe(true);
      await page.getByText('Someone else changed this record since you opened it.').waitFor();
      expect(await form.getByLabel('Part 1 amount (USD)').inputValue()).toBe('7');
      expect(await form.getByLabel('Part 2 amount (USD)').inputValue()).toBe('5');
      expect((await linesOf(api, id)).version).toBe(2);
    });

    it('an open split waits while the coding has unsaved changes: sending it would have dropped them', async () => {
      const id = await reviewRecord(api, [[40, 'Hotel']]);
      await openScreen(page, `${server().url}/console/records/${id}`, /40\.00 USD/);
      const section = page.getByRole('region', { name: 'Split and merge lines' });
      await section.getByRole('button', { name: 'Split line 1' }).click();
      const form = page.getByRole('form', { name: 'Split line 1 (40.00 USD)' });
      const send = form.getByRole('button', { name: 'Split line 1' });
      await eventually(() => send.isEnabled()).toBe(true);
      await form.getByLabel('Part 1 amount (USD)').fill('25');
      await form.getByLabel('Part 2 amount (USD)').fill('15');

      // The coding changes under the open form: the split waits, and says why.
      await page.getByRole('combobox', { name: 'GL Account for line 1' }).fill('Trav');
      await page.getByRole('option', { name: 'Travel · 6100' }).click();
      await page.getByText('Unsaved changes on 1 line').waitFor();
      await eventually(() => send.isDisabled()).toBe(true);
      await section.getByText('Save or discard the coding changes first.').waitFor();
      // Enter in a part, and a click on the button: no split is sent.
      const splits: string[] = [];
      const onRequest = (request: Request) => {
        if (new URL(request.url()).pathname.endsWith('/split')) splits.push(request.method());
      };
      page.on('request', onRequest);
      try {
        await form.getByLabel('Part 1 amount (USD)').press('Enter');
        await send.click({ force: true });
        // A request the page had started by now has been seen: the page's own fetch, sent after them, answers.
        await page.evaluate(async () => (await fetch('/auth/session')).status);
      } finally {
        page.off('request', onRequest);
      }
      expect(splits).toEqual([]);
      await expect(page.getByText('Unsaved changes on 1 line').count()).resolves.toBe(1);
      expect(await linesOf(api, id)).toEqual({ version: 1, lines: [[40, 'Hotel']] });

      // Saved, the split goes: the form stayed open through the new version, with the parts as typed.
      await page.getByRole('button', { name: 'Save coding' }).click();
      await page.getByText('Coding saved: the record is now at version 2.').waitFor();
      expect(await form.count()).toBe(1);
      expect(await form.getByLabel('Part 1 amount (USD)').inputValue()).toBe('25');
      expect(await form.getByLabel('Part 2 amount (USD)').inputValue()).toBe('15');
      await eventually(() => send.isEnabled()).toBe(true);
      await send.click();
      await page.getByText('Line 1 split in 2: the record is now at version 3.').waitFor();
      expect(await linesOf(api, id)).toEqual({
        version: 3,
        lines: [
          [25, 'Hotel'],
          [15, 'Hotel'],
        ],
      });
      // The form and its button gone, the focus is on the section's heading, not on the page.
      expect(await form.count()).toBe(0);
      expect(await focusedText(page)).toBe('H2 Split and merge lines');
    });

    it('a cancelled split gives the focus back to its line; a split whose line someone else merged away closes', async () => {
      // A page of its own whose clock the test moves: the record read again when the test says so.
      const ownContext = await newContext(browser());
      try {
        await ownContext.clock.install();
        const own = await signedInPage(
          ownContext,
          `${server().url}/console`,
          await newUser(server().db, 'BOOKKEEPER', accountId),
        );
        const id = await reviewRecord(api, [
          [18, 'Lunch'],
          [12, 'Coffee'],
        ]);
        await openScreen(own, `${server().url}/console/records/${id}`, /30\.00 USD/);
        const section = own.getByRole('region', { name: 'Split and merge lines' });
        await section.getByRole('button', { name: 'Split line 2' }).click();
        const form = own.getByRole('form', { name: 'Split line 2 (12.00 USD)' });
        await form.getByRole('button', { name: 'Cancel' }).click();
        expect(await form.count()).toBe(0);
        expect(await focusedText(own)).toBe('BUTTON Split line 2');

        // Opened again from the keyboard, the focus in a part, while another session merges the two lines: the page
        // reads the record again (the user comes back to the tab later) and line 2 is gone.
        await own.keyboard.press('Enter');
        await form.getByLabel('Part 1 amount (USD)').focus();
        const lineIds = (await api.accountingRecords.get(id, { single_entry: true })).line_items.map((l) => l.id);
        await api.review.mergeLines(id, { version: 1, line_ids: lineIds });
        await own.clock.fastForward('05:00');
        await own.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
        await eventually(() => form.count()).toBe(0);
        expect(await focusedText(own)).toBe('H2 Split and merge lines');
        await section.getByText('Line 2 was changed in another session: its split was closed.').waitFor();
        // No split is taken to be open: the remaining line's can be opened.
        await section.getByRole('button', { name: 'Split line 1' }).click();

        // Cancelled while the coding has unsaved changes, its line's button is disabled: the heading takes the focus.
        await own.getByRole('combobox', { name: 'GL Account for line 1' }).fill('Trav');
        await own.getByRole('option', { name: 'Travel · 6100' }).click();
        await section.getByText('Save or discard the coding changes first.').waitFor();
        await own
          .getByRole('form', { name: 'Split line 1 (30.00 USD)' })
          .getByRole('button', { name: 'Cancel' })
          .click();
        expect(await focusedText(own)).toBe('H2 Split and merge lines');
      } finally {
        await ownContext.close();
      }
    });
  },
  { only: 'sqlite' },
);
