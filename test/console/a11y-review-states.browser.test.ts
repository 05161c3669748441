import type { Page } from 'playwright-core';
import { it } from 'vitest';
import { sharedBrowser, startConsoleServer } from '../support/browser.js';
import { expectAccessible, expectNoAxeViolationsAtBothWidths } from '../support/console-a11y.js';
import { consoleStory, eventually, shownRecordIds } from '../support/console-story.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/**
 * Issue 31: "axe: no violation of any impact on any page; every action reachable by keyboard alone", for the states
 * a page passes through and a first load does not show: the queue with records selected and a bulk action's
 * refusals listed, the record page with a picker's matches open, with unsaved coding and with the question asked
 * before it is left. axe at 1280 px and at 390 px, and Tab round every control of each state.
 */
eachDialectWith(
  'axe and the keyboard on the states of the review screens',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    const story = consoleStory(server, dialect, browser, { signedIn: true });
    const page = (): Page => story.opened().page;

    it('finds nothing on the queue with records selected, and with the refusals of a bulk approve', async () => {
      await page().goto(`${story.base()}/queue?review_status=REVIEW`);
      await eventually(async () => (await shownRecordIds(page())).length).toBeGreaterThan(2);
      for (const r of [story.r.uncoded!, story.r.coded!]) {
        await page()
          .getByRole('checkbox', { name: `Select record ${r.id}` })
          .check();
      }
      await page().getByRole('button', { name: 'Approve' }).waitFor();
      await expectAccessible(page(), 'the queue with 2 records selected');
      await page().getByRole('button', { name: 'Approve' }).click();
      await page()
        .getByRole('region', { name: /^Nothing has moved yet/ })
        .waitFor();
      await expectAccessible(page(), 'the queue with the refusals of a bulk approve');
    });

    it('finds nothing on the record page with a picker open, and with the question before leaving unsaved coding', async () => {
      await page().goto(`${story.base()}/records/${story.r.uncoded!.id}`);
      const picker = page().getByRole('combobox', { name: 'GL Account for line 1' });
      await picker.fill('Tra');
      await page().getByRole('option', { name: 'Travel · 6100' }).waitFor();
      // axe alone: Tab would leave the picker and close its matches.
      await expectNoAxeViolationsAtBothWidths(page(), 'the record page with a picker’s matches open');
      await page().getByRole('option', { name: 'Travel · 6100' }).click();
      await page().getByText('Unsaved changes on 1 line').waitFor();
      await expectAccessible(page(), 'the record page with unsaved coding');
      await page().getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review queue' }).click();
      const dialog = page().getByRole('dialog', { name: 'Leave without saving?' });
      await dialog.waitFor();
      await expectAccessible(page(), 'the question before leaving unsaved coding');
      await dialog.getByRole('button', { name: 'Stay' }).click();
      await dialog.waitFor({ state: 'detached' });
    });
  },
  { only: 'sqlite' },
);
