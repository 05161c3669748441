import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { RecordCreate, SvcClient } from '../../client/src/index.js';
import {
  DESKTOP,
  expectNoAxeViolations,
  expectNoHorizontalOverflow,
  newContext,
  PHONE,
  screenshotFailuresThenClose,
  sharedBrowser,
  signIn,
  signInThroughForm,
  startConsoleServer,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually } from '../support/console-story.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();
const SUBMIT_FIRST = 'It is still in Prepare: it has to be submitted for review before it can be approved.';
const UNCODED = 'It lacks the coding required before approval: line 1 needs GL Account.';

eachDialectWith(
  'record page: the review moves the server allows, names in the history, the conflict in view',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let api: SvcClient;
    let accountId: string;
    let glId: string;
    let bookkeeper: Awaited<ReturnType<typeof newUser>>;
    const values: Record<string, string> = {};
    const ids: Record<string, string> = {};
    const base = () => `${server().url}/console`;
    const stateOf = async (name: string) => {
      const record = await api.accountingRecords.get(ids[name]!);
      return [record.review_status, record.version];
    };
    const moves = () => page.getByRole('group', { name: 'Review moves' }).getByRole('button');
    /** Each move button as the user sees it: its words, and whether it can be pressed. */
    const buttons = async () =>
      Promise.all((await moves().all()).map(async (b) => [await textOf(b), await b.isEnabled()]));
    const reasons = () => page.getByRole('list', { name: 'Moves not possible now' }).getByRole('listitem');
    const open = async (name: string, heading: string) => {
      await page.goto(`${base()}/records/${encodeURIComponent(ids[name]!)}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    };

    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      glId = gl.svc_id;
      const created = (
        await api.fieldValues.create(gl.svc_id, [
          { value: 'Travel', remote_id: '6100' },
          { value: 'Meals', remote_id: '6200' },
        ])
      ).items;
      for (const v of created) values[v.value] = v.svc_id;
      const record = (name: string, review_status: RecordCreate['review_status'], coded: boolean): RecordCreate => ({
        type: 'CARD_EXPENSE_POST',
        amount: { amount: 20, currency: 'USD' },
        posted_at: '2026-06-11T09:00:00Z',
        review_status,
        vendor: { id: `v_${name}`, name },
        ...(coded
          ? {
              lines: [
                {
                  amount: { amount: 20, currency: 'USD' },
                  field_values: [{ field_id: gl.svc_id, svc_id: values.Travel! }],
                },
              ],
            }
          : {}),
      });
      const names = ['prepCoded', 'reviewBare', 'conflict'] as const;
      const records = await api.review.createRecords([
        record('Prep Coded', 'PREPARE', true),
        record('Review Bare', 'REVIEW', false),
        record('Conflict Co', 'REVIEW', false),
      ]);
      names.forEach((name, i) => (ids[name] = records.items[i]!.id));
      await api.review.setRequiredCoding([gl.svc_id]);

      bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
      const context = await newContext(browser());
      page = await context.newPage();
      opened = { context, page };
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, bookkeeper);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });
    screenshotFailuresThenClose('record-moves', () => opened);

    it('offers the moves the server allows, a refused one disabled with its reason; submit and approve makes both', async () => {
      await open('prepCoded', 'Prep Coded, 20.00 USD');
      await eventually(buttons).toEqual([
        ['Submit for review', true],
        ['Approve', false],
        ['Submit and approve', true],
      ]);
      await expect(reasons().allInnerTexts()).resolves.toEqual([`Approve: ${SUBMIT_FIRST}`]);
      // The reason is the disabled button's description.
      const approve = page.getByRole('button', { name: 'Approve', exact: true });
      const described = await approve.getAttribute('aria-describedby');
      await expect(textOf(page.locator(`[id="${described}"]`))).resolves.toBe(`Approve: ${SUBMIT_FIRST}`);
      // Every impact, the landmark rules included.
      await expectNoAxeViolations(page, 'record with refused moves');

      await page.getByRole('button', { name: 'Submit and approve' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Submitted and approved: the record is now Ready for export (version 3).' })
        .waitFor();
      expect(await stateOf('prepCoded')).toEqual(['READY_FOR_EXPORT', 3]);
      const history = await api.review.history(ids.prepCoded!, {});
      expect(history.items.map((e) => [e.type, e.changes, e.actor])).toEqual([
        ['INGESTED', expect.anything(), expect.objectContaining({ type: 'client' })],
        [
          'MOVED',
          { review_status: { from: 'PREPARE', to: 'REVIEW' } },
          { type: 'user', id: bookkeeper.user_id, name: bookkeeper.email },
        ],
        [
          'MOVED',
          { review_status: { from: 'REVIEW', to: 'READY_FOR_EXPORT' } },
          { type: 'user', id: bookkeeper.user_id, name: bookkeeper.email },
        ],
      ]);
      // Approved: the only move left is back.
      await eventually(buttons).toEqual([['Send back', true]]);
      await expect(reasons().count()).resolves.toBe(0);
      await expectNoAxeViolations(page, 'record approved');
    });

    it('refuses Approve for a record lacking its coding, in the server’s words; Send back moves it one step back', async () => {
      await open('reviewBare', 'Review Bare, 20.00 USD');
      await eventually(buttons).toEqual([
        ['Approve', false],
        ['Send back', true],
      ]);
      await expect(reasons().allInnerTexts()).resolves.toEqual([`Approve: ${UNCODED}`]);
      await page.getByRole('button', { name: 'Send back' }).click();
      await page.getByRole('status').filter({ hasText: 'Moved: the record is now Prepare (version 2).' }).waitFor();
      expect(await stateOf('reviewBare')).toEqual(['PREPARE', 2]);
      // In Prepare, uncoded: submitting is allowed; approving is not, and submitting first would not make it so.
      await eventually(buttons).toEqual([
        ['Submit for review', true],
        ['Approve', false],
      ]);
      await expect(reasons().allInnerTexts()).resolves.toEqual([`Approve: ${SUBMIT_FIRST}`]);
    });

    it('names the people who acted in the history: "you", and a colleague by name', async () => {
      const colleague = await newUser(server().db, 'BOOKKEEPER', accountId);
      const theirs = await newContext(browser());
      try {
        const other = await signIn(theirs, base(), colleague);
        await other.goto(`${base()}/records/${encodeURIComponent(ids.reviewBare!)}`);
        await other.getByRole('button', { name: 'Submit for review' }).click();
        await other
          .getByRole('status')
          .filter({ hasText: 'Submitted: the record is now Review (version 3).' })
          .waitFor();
      } finally {
        await theirs.close();
      }
      expect(await stateOf('reviewBare')).toEqual(['REVIEW', 3]);

      await open('reviewBare', 'Review Bare, 20.00 USD');
      const events = page.getByRole('region', { name: 'History' }).getByRole('listitem');
      await eventually(() => events.count()).toBe(3);
      const by = async (i: number) => (await textOf(events.nth(i))).split('\n')[0]!.replace(/, .* by /, ' by ');
      await expect(by(1)).resolves.toBe('Moved version 2 by you');
      await expect(by(2)).resolves.toBe(`Moved version 3 by ${colleague.email}`);
      await expect(textOf(events.nth(2))).resolves.not.toContain(colleague.user_id);
    });

    it('puts the version-conflict notice in view and gives it the focus, wherever the user was on the page', async () => {
      await page.setViewportSize(PHONE);
      try {
        await open('conflict', 'Conflict Co, 20.00 USD');
        const current = await api.accountingRecords.get(ids.conflict!, { single_entry: true });
        await api.review.codeLines(ids.conflict!, {
          version: current.version,
          lines: [{ line_id: current.line_items[0]!.id, field_values: [{ field_id: glId, svc_id: values.Meals! }] }],
        });
        const picker = page.getByRole('combobox', { name: 'GL Account for line 1' });
        await picker.fill('Trav');
        await page.getByRole('option', { name: 'Travel · 6100' }).click();
        const save = page.getByRole('button', { name: 'Save coding' });
        await save.scrollIntoViewIfNeeded();
        // The heading is out of sight from where the user saves.
        await expect(
          page.getByRole('heading', { level: 1 }).evaluate((h) => h.getBoundingClientRect().bottom),
        ).resolves.toBeLessThan(0);
        await save.click();

        const alert = page
          .getByRole('alert')
          .filter({ hasText: 'Someone else changed this record since you opened it.' });
        await alert.waitFor();
        await eventually(() => page.evaluate(() => document.activeElement?.getAttribute('aria-labelledby'))).toBe(
          'version-conflict',
        );
        const box = await alert.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, height: window.innerHeight };
        });
        expect(box.top).toBeGreaterThanOrEqual(0);
        expect(box.bottom).toBeLessThanOrEqual(box.height);
        await expectNoHorizontalOverflow(page, 'record conflict on a phone');
        // Nothing of the user's was saved over the colleague's change.
        const stored = await api.accountingRecords.get(ids.conflict!, { single_entry: true });
        expect(stored.version).toBe(2);
        expect(stored.line_items.map((l) => l.accounting_field_values.map((c) => c.field_value_name))).toEqual([
          ['Meals'],
        ]);
      } finally {
        await page.setViewportSize(DESKTOP);
      }
    });

    it('on a phone, a reviewer reads the record and sends it back or approves it without sideways scroll', async () => {
      await page.setViewportSize(PHONE);
      try {
        await open('prepCoded', 'Prep Coded, 20.00 USD');
        const within = async (name: string) => {
          const button = page.getByRole('button', { name, exact: true });
          await button.scrollIntoViewIfNeeded();
          const box = (await button.boundingBox())!;
          return box.x >= 0 && box.x + box.width <= PHONE.width;
        };
        await expectNoHorizontalOverflow(page, 'record on a phone');
        await expect(within('Send back')).resolves.toBe(true);
        await page.getByRole('button', { name: 'Send back' }).click();
        await page.getByRole('status').filter({ hasText: 'Moved: the record is now Review (version 4).' }).waitFor();
        await eventually(buttons).toEqual([
          ['Approve', true],
          ['Send back', true],
        ]);
        await expect(within('Approve')).resolves.toBe(true);
        await page.getByRole('button', { name: 'Approve', exact: true }).click();
        await page
          .getByRole('status')
          .filter({ hasText: 'Approved: the record is now Ready for export (version 5).' })
          .waitFor();
        expect(await stateOf('prepCoded')).toEqual(['READY_FOR_EXPORT', 5]);
        await expect(page.evaluate(() => window.scrollX)).resolves.toBe(0);
        await expectNoAxeViolations(page, 'record on a phone');
      } finally {
        await page.setViewportSize(DESKTOP);
      }
    });
  },
  { only: 'sqlite' },
);
