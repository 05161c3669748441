import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { eventually, newContext, screenshotFailuresThenClose, sharedBrowser, signIn } from '../support/browser.js';
import { expectEveryControlReachedByTab } from '../support/console-a11y.js';
import { startInProcess } from '../support/console-receipts.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { newJpeg } from '../support/receipts.js';

const browser = sharedBrowser();

const API = [
  'fields.write',
  'field_values.write',
  'accounting.record.read',
  'accounting.record.write',
  'accounting.record.admin',
] as const;

/** The focused element's accessible name as a reader would say it (its label or its text). */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return (el?.getAttribute('aria-label') ?? el?.textContent ?? '').trim();
  });

/**
 * Issue 31: "every action reachable by keyboard alone", in the console's dialogs: opened with the keyboard, Tab
 * goes round the dialog's controls and never leaves it (the page behind is inert), each shows its focus, and Escape
 * closes it, the focus back where it was.
 */
eachDialectWith(
  'dialogs by keyboard alone',
  () => startInProcess(),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let recordUrl: string;

    beforeAll(async () => {
      const accountId = newAccountId();
      const api = await server().ctx.as(API, accountId);
      await api.newCoding('GL Account', [
        { value: 'Travel', remote_id: '6100' },
        { value: 'Meals', remote_id: '6200' },
      ]);
      const record = await api.newRecord({ review_status: 'REVIEW', vendor: { id: 'v_zephyr', name: 'Zephyr Cabs' } });
      recordUrl = `${server().url}/console/records/${encodeURIComponent(record.id)}`;
      const bookkeeper = await newUser(server().ctx.db, 'BOOKKEEPER', accountId);
      const context = await newContext(browser());
      page = await signIn(context, `${server().url}/console`, bookkeeper);
      opened = { context, page };
    });
    screenshotFailuresThenClose('keyboard-dialogs', () => opened);

    it('the receipt viewer: opened by Enter on a receipt, Tab stays inside, Escape closes it', async () => {
      await page.goto(recordUrl);
      await page.getByLabel('Choose files').setInputFiles([
        { name: 'a.jpg', mimeType: 'image/jpeg', buffer: await newJpeg(300) },
        { name: 'b.jpg', mimeType: 'image/jpeg', buffer: await newJpeg(200) },
      ]);
      const tile = page.getByRole('button', { name: /^View receipt 1 of 2/ });
      await tile.waitFor();
      await expectEveryControlReachedByTab(page, 'the record page with two receipts');

      await tile.focus();
      await page.keyboard.press('Enter');
      const viewer = page.getByRole('dialog');
      await viewer.getByRole('heading', { name: /^Receipt 1 of 2/ }).waitFor();
      await eventually(() => focusedName(page)).toBe('Close');
      await expectEveryControlReachedByTab(page, 'the receipt viewer');
      await page.keyboard.press('Escape');
      await viewer.waitFor({ state: 'detached' });
      await eventually(() => focusedName(page)).toMatch(/^View receipt 1 of 2/);
    });

    it('the question before leaving unsaved coding: asked on a link followed by Enter, Tab stays inside, Escape stays', async () => {
      await page.goto(recordUrl);
      const picker = page.getByRole('combobox', { name: 'GL Account for line 1' });
      await picker.focus();
      await page.keyboard.type('Trav');
      await page.getByRole('option', { name: /^Travel/ }).waitFor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.getByText('Unsaved changes on 1 line').waitFor();

      const queueLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review queue' });
      await queueLink.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
      await dialog.waitFor();
      // The safe answer has the focus.
      await eventually(() => focusedName(page)).toBe('Stay');
      await expectEveryControlReachedByTab(page, 'the question before leaving');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(page.url()).toBe(recordUrl);
      await expect(picker.inputValue()).resolves.toBe('Travel');

      // Asked again, Leave is a Tab away and Enter follows the link.
      await queueLink.focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor();
      await page.keyboard.press('Tab');
      await eventually(() => focusedName(page)).toBe('Leave');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    });
  },
  { only: 'sqlite' },
);
