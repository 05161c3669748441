import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, expect, it } from 'vitest';
import {
  checkScreen,
  eventually,
  expectNoSeriousAxeViolations,
  holdValueSearch,
  newContext,
  screenshot,
  sharedBrowser,
  signIn,
  startConsoleServer,
} from '../support/browser.js';
import { actions, cell, company, grid, nameOf, stored, uncoded, watchFocusOnBody } from '../support/coding-grid.js';
import { newUser } from '../support/console.js';
import { eachDialectWith } from '../support/dialects.js';
import { CEILING_MS } from '../support/wait.js';

const browser = sharedBrowser();

eachDialectWith(
  'console: the coding grid in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    const contexts: BrowserContext[] = [];
    let shown: Page | undefined;

    async function signedIn(accountId: string) {
      const context = await newContext(browser());
      contexts.push(context);
      const user = await newUser(server().db, 'BOOKKEEPER', accountId);
      shown = await signIn(context, `${server().url}/console`, user);
      return shown;
    }

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && shown && !shown.isClosed()) {
        await screenshot(shown, `failed-coding-grid-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });
    afterAll(async () => {
      for (const context of contexts) await context.close();
    });

    it(
      'codes records from the keyboard: type-ahead, browsing, copy down, apply to selected, suggestions; a stale record is refused on its row while the others are saved; approves the selected',
      { timeout: 6 * CEILING_MS },
      async () => {
        const { accountId, api } = await company(server());
        const made = (
          await api.review.createRecords([
            uncoded('Nimbus Air', 420, 1),
            uncoded('Harbor Hotel', 180, 2),
            uncoded('Uber', 23.5, 3),
            uncoded('Corner Deli', 12, 4),
            uncoded('Fresh Bakery', 8.75, 5),
          ])
        ).items;
        const page = await signedIn(accountId);
        const act = actions(page);
        await act.click(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Coding grid' }));
        await page.getByRole('heading', { level: 1, name: 'Coding grid' }).waitFor();
        // Uber's history speaks: its empty cells show the suggestion, greyed.
        await eventually(() => nameOf(cell(page, 'GL Account', 'Uber'))).toMatch(
          /: empty, suggested Travel: 3 of the last 3 records of vendor Uber were coded Travel$/,
        );
        await expect(grid(page).getByRole('row').count()).resolves.toBe(6);
        await expectNoSeriousAxeViolations(page, 'coding grid');

        // Enter edits; typing searches; Enter takes the top match. An Enter pressed before the search answered takes
        // it when the answer comes, and the cell has the focus back in the same moment: on a slowed page, no change
        // of the page leaves the focus on its body (where the Tab below would be the browser's, out of the grid).
        await act.click(cell(page, 'GL Account', 'Nimbus Air'));
        await act.press('Enter');
        const picker = grid(page).getByRole('combobox', { name: /^GL Account for Nimbus Air,/ });
        await picker.waitFor();
        // The search's answer is held until Enter has been pressed: the edit ends when the answer comes.
        const search = await holdValueSearch(page);
        const focus = await watchFocusOnBody(page);
        let focusOnBody: number;
        try {
          await act.type('Tra');
          await grid(page).getByText('Searching…').waitFor();
          await act.press('Enter');
          search.release();
          await eventually(() => nameOf(cell(page, 'GL Account', 'Nimbus Air'))).toMatch(/: Travel, changed$/);
        } finally {
          await search.stop();
          focusOnBody = await focus.stop();
        }
        expect(focusOnBody).toBe(0);
        // Tab moves right; arrows browse the matches ("s": Sales, then Operations and Engineering…).
        await act.press('Tab');
        await act.press('Enter');
        await act.type('tions');
        const options = grid(page).getByRole('listbox').getByRole('option');
        await eventually(() => options.allInnerTexts()).toEqual(['Operations']);
        await act.press('ArrowDown');
        await eventually(() => options.first().getAttribute('aria-selected')).toBe('true');
        await act.press('Enter');
        await eventually(() => nameOf(cell(page, 'Department', 'Nimbus Air'))).toMatch(/: Operations, changed$/);
        // Escape cancels an edit.
        await act.press('Enter');
        await act.type('Sal');
        await act.press('Escape');
        await eventually(() => nameOf(cell(page, 'Department', 'Nimbus Air'))).toMatch(/: Operations, changed$/);
        await expect(
          cell(page, 'Department', 'Nimbus Air').evaluate((el) => el === document.activeElement),
        ).resolves.toBe(true);

        // Ctrl+D copies the value of the cell above.
        await act.press('ArrowDown');
        await act.press('Control+d');
        await act.press('ArrowLeft');
        await act.press('Control+d');
        await eventually(() => nameOf(cell(page, 'GL Account', 'Harbor Hotel'))).toMatch(/: Travel, changed$/);
        await eventually(() => nameOf(cell(page, 'Department', 'Harbor Hotel'))).toMatch(/: Operations, changed$/);

        // A accepts the suggestion shown in the cell.
        await act.press('ArrowDown');
        await act.press('a');
        await act.press('ArrowRight');
        await act.press('a');
        await eventually(() => nameOf(cell(page, 'GL Account', 'Uber'))).toMatch(/: Travel, changed$/);
        await eventually(() => nameOf(cell(page, 'Department', 'Uber'))).toMatch(/: Sales, changed$/);

        // Space selects rows; Ctrl+Enter sets the active cell's value on every selected row.
        await act.press('ArrowDown');
        await act.press(' ');
        await act.press('ArrowDown');
        await act.press(' ');
        await act.press('ArrowLeft');
        await act.press('Enter');
        await act.type('Mea');
        await act.press('Enter');
        await eventually(() => nameOf(cell(page, 'GL Account', 'Fresh Bakery'))).toMatch(/: Meals, changed$/);
        await act.press('Control+Enter');
        await act.press('Tab');
        await act.press('Enter');
        await act.type('Sal');
        await act.press('Enter');
        await eventually(() => nameOf(cell(page, 'Department', 'Fresh Bakery'))).toMatch(/: Sales, changed$/);
        await act.press('Control+Enter');
        await eventually(() => nameOf(cell(page, 'GL Account', 'Corner Deli'))).toMatch(/: Meals, changed$/);
        await eventually(() => nameOf(cell(page, 'Department', 'Corner Deli'))).toMatch(/: Sales, changed$/);
        await page.getByText('5 records changed; 2 rows selected').waitFor();
        await checkScreen(page, 'coding-grid', dialect);

        // Meanwhile someone else codes Harbor Hotel: the grid's version of it is stale.
        const harbor = made[1]!;
        await api.review.codeLines(harbor.id, {
          version: 1,
          lines: [{ line_id: harbor.line_items[0]!.id, field_values: [] }],
        });
        await act.press('Control+s');
        await page
          .getByRole('status')
          .filter({ hasText: '4 records saved; 1 record not saved (the reason is on its rows).' })
          .waitFor();
        await grid(page)
          .getByRole('row', { name: /Harbor Hotel/ })
          .getByText(/^Not saved: someone changed this record meanwhile \(it is now at version 2\)/)
          .waitFor();
        // The refused record keeps its edits; the saved ones are no longer changed.
        await expect(nameOf(cell(page, 'GL Account', 'Harbor Hotel'))).resolves.toMatch(/: Travel, changed$/);
        await expect(nameOf(cell(page, 'GL Account', 'Nimbus Air'))).resolves.toMatch(/: Travel$/);
        const deptTravel = (gl: string, dept: string) => [[`GL Account=${gl}`, `Department=${dept}`]];
        expect(await stored(api, made)).toEqual([
          { vendor: 'Nimbus Air', review_status: 'REVIEW', version: 2, coding: deptTravel('Travel', 'Operations') },
          { vendor: 'Harbor Hotel', review_status: 'REVIEW', version: 2, coding: [[]] },
          { vendor: 'Uber', review_status: 'REVIEW', version: 2, coding: deptTravel('Travel', 'Sales') },
          { vendor: 'Corner Deli', review_status: 'REVIEW', version: 2, coding: deptTravel('Meals', 'Sales') },
          { vendor: 'Fresh Bakery', review_status: 'REVIEW', version: 2, coding: deptTravel('Meals', 'Sales') },
        ]);

        // Approve the selected rows' records (Corner Deli and Fresh Bakery), at their saved versions.
        await act.click(page.getByRole('button', { name: 'Approve selected' }));
        await page.getByRole('status').filter({ hasText: '2 records approved (now Ready for export).' }).waitFor();
        expect((await stored(api, made)).map((r) => [r.vendor, r.review_status, r.version])).toEqual([
          ['Nimbus Air', 'REVIEW', 2],
          ['Harbor Hotel', 'REVIEW', 2],
          ['Uber', 'REVIEW', 2],
          ['Corner Deli', 'READY_FOR_EXPORT', 3],
          ['Fresh Bakery', 'READY_FOR_EXPORT', 3],
        ]);
        await eventually(() => grid(page).getByRole('row').count()).toBe(4);

        // The filters: while a change is unsaved they wait; discarded, they narrow the lines.
        const vendorFilter = page.getByRole('searchbox', { name: 'Vendor' });
        await expect(vendorFilter.isDisabled()).resolves.toBe(true);
        await act.click(page.getByRole('button', { name: 'Discard changes' }));
        await act.click(vendorFilter);
        await act.type('uber');
        await eventually(() => grid(page).getByRole('row').count()).toBe(2);
        await expect(nameOf(cell(page, 'GL Account', 'Uber'))).resolves.toMatch(/: Travel$/);
        await act.select(page.getByLabel('Status'), 'PREPARE');
        await page.getByText('No line to code here.').waitFor();
      },
    );

    it(
      'in Prepare, submits and approves the selected records; one refused at approval is left submitted, and says so',
      { timeout: 6 * CEILING_MS },
      async () => {
        const { accountId, api } = await company(server());
        const [record] = (await api.review.createRecords([{ ...uncoded('Uber', 12, 3), review_status: 'PREPARE' }]))
          .items;
        const page = await signedIn(accountId);
        const act = actions(page);
        await act.click(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Coding grid' }));
        await act.select(page.getByLabel('Status'), 'PREPARE');
        await eventually(() => grid(page).getByRole('row').count()).toBe(2);
        await act.click(cell(page, 'GL Account', 'Uber'));
        await act.press(' ');
        // Uncoded, the account requiring GL Account and Department: submitted for review, then refused approval.
        await act.click(page.getByRole('button', { name: 'Submit and approve selected' }));
        await page
          .getByRole('status')
          .filter({
            hasText:
              'Nothing was approved: 1 record submitted for review, none approved: 1 record cannot be (the reason is on its rows).',
          })
          .waitFor();
        expect((await stored(api, [record!])).map((r) => [r.review_status, r.version])).toEqual([['REVIEW', 2]]);
      },
    );

    it('shows 200 records’ lines a page, and the next page after them', { timeout: 6 * CEILING_MS }, async () => {
      const { accountId, api } = await company(server());
      await api.review.createRecords(
        Array.from({ length: 205 }, (_, i) => uncoded(`Vendor ${String(i).padStart(3, '0')}`, 1 + i, 1 + (i % 28))),
      );
      const page = await signedIn(accountId);
      const act = actions(page);
      await act.click(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Coding grid' }));
      // A header row and 200 lines.
      await eventually(() => grid(page).getByRole('row').count()).toBe(201);
      await act.click(page.getByRole('button', { name: 'Next page' }));
      await eventually(() => grid(page).getByRole('row').count()).toBe(6);
      await page.getByText('Page 2').waitFor();
      await act.click(page.getByRole('button', { name: 'Previous page' }));
      await eventually(() => grid(page).getByRole('row').count()).toBe(201);
    });
  },
  { only: 'sqlite' },
);
