import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RecordCreate, SvcClient } from '../../client/src/index.js';
import {
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signIn,
  startConsoleServer,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually } from '../support/console-story.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();
const CONFLICT = 'Someone else changed this record since you opened it.';

eachDialectWith(
  'a version conflict says what changed and who changed it; keep mine or reload',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let bobContext: BrowserContext | undefined;
    let ann: Page;
    let bob: Page;
    let api: SvcClient;
    let accountId: string;
    let bobEmail: string;
    const ids: Record<string, string> = {};
    const base = () => `${server().url}/console`;
    const codingOf = async (id: string) => {
      const record = await api.accountingRecords.get(id, { single_entry: true });
      return [record.version, record.line_items.map((l) => l.accounting_field_values.map((v) => v.field_value_name))];
    };
    const open = async (page: Page, name: string) => {
      await page.goto(`${base()}/records/${encodeURIComponent(ids[name]!)}`);
      await page.getByRole('heading', { level: 1, name: `${name}, 20.00 USD` }).waitFor();
    };
    const pick = async (page: Page, value: string) => {
      await page.getByRole('combobox', { name: 'GL Account for line 1' }).fill(value.slice(0, 4));
      await page.getByRole('option', { name: new RegExp(`^${value} · `) }).click();
    };
    beforeAll(async () => {
      accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      await api.fieldValues.create(gl.svc_id, [
        { value: 'Travel', remote_id: '6100' },
        { value: 'Meals', remote_id: '6200' },
        { value: 'Software', remote_id: '6300' },
      ]);
      const record = (name: string): RecordCreate => ({
        type: 'CARD_EXPENSE_POST',
        amount: { amount: 20, currency: 'USD' },
        posted_at: '2026-06-11T09:00:00Z',
        review_status: 'REVIEW',
        vendor: { id: `v_${name}`, name },
      });
      const names = ['Keep Co', 'Reload Co'] as const;
      const created = await api.review.createRecords(names.map(record));
      names.forEach((name, i) => (ids[name] = created.items[i]!.id));

      const annUser = await newUser(server().db, 'BOOKKEEPER', accountId);
      const bobUser = await newUser(server().db, 'BOOKKEEPER', accountId);
      bobEmail = bobUser.email;
      const context = await newContext(browser());
      ann = await signIn(context, base(), annUser);
      opened = { context, page: ann };
      bobContext = await newContext(browser());
      bob = await signIn(bobContext, base(), bobUser);
    });
    screenshotFailuresThenClose('version-conflict', () => opened);
    afterAll(async () => {
      await bobContext?.close();
    });

    /** Both open the record; Bob codes it Meals and saves; Ann, still on version 1, picks `mine` and saves. */
    async function conflict(name: string, mine: string) {
      await open(ann, name);
      await open(bob, name);
      await pick(bob, 'Meals');
      await bob.getByRole('button', { name: 'Save coding' }).click();
      await bob.getByRole('status').filter({ hasText: 'Coding saved: the record is now at version 2.' }).waitFor();
      await pick(ann, mine);
      await ann.getByRole('button', { name: 'Save coding' }).click();
      const alert = ann.getByRole('alert').filter({ hasText: CONFLICT });
      await alert.waitFor();
      return alert;
    }

    it('keep mine: the current version with the unsaved pick over it; the next save is of the current version', async () => {
      const alert = await conflict('Keep Co', 'Travel');
      await eventually(() => textOf(alert)).toContain(`Version 1 (yours) → version 2 (now), changed by ${bobEmail}.`);
      await expect(
        alert.getByRole('list', { name: 'What changed' }).getByRole('listitem').allInnerTexts(),
      ).resolves.toEqual(['Line 1, GL Account: none → Meals']);
      // Nothing of Ann's was saved.
      expect(await codingOf(ids['Keep Co']!)).toEqual([2, [['Meals']]]);

      await alert.getByRole('button', { name: 'Keep mine' }).click();
      await alert.waitFor({ state: 'detached' });
      const picker = ann.getByRole('combobox', { name: 'GL Account for line 1' });
      await eventually(() => picker.inputValue()).toBe('Travel');
      await ann.getByText('version 1 then, version 2 now', { exact: false }).waitFor();
      await ann.getByRole('button', { name: 'Save coding' }).click();
      await ann.getByRole('status').filter({ hasText: 'Coding saved: the record is now at version 3.' }).waitFor();
      expect(await codingOf(ids['Keep Co']!)).toEqual([3, [['Travel']]]);
    });

    it('reload (discard mine): the current version as it is, the unsaved pick gone for good', async () => {
      const name = 'Reload Co';
      await open(ann, name);
      await open(bob, name);
      await pick(bob, 'Meals');
      await bob.getByRole('button', { name: 'Save coding' }).click();
      await bob.getByRole('status').filter({ hasText: 'Coding saved: the record is now at version 2.' }).waitFor();
      // An integration sends it back meanwhile: a second actor, and a change of state.
      await api.review.moveRecords({ review_status: 'PREPARE', records: [{ id: ids[name]!, version: 2 }] });
      await pick(ann, 'Software');
      await ann.getByRole('button', { name: 'Save coding' }).click();
      const alert = ann.getByRole('alert').filter({ hasText: CONFLICT });
      await alert.waitFor();
      await eventually(() => textOf(alert)).toMatch(
        new RegExp(
          `Version 1 \\(yours\\) → version 3 \\(now\\), changed by ${bobEmail.replace(/\./g, '\\.')}, API client cli_\\S+\\.`,
        ),
      );
      await expect(
        alert.getByRole('list', { name: 'What changed' }).getByRole('listitem').allInnerTexts(),
      ).resolves.toEqual(['Status: Review → Prepare', 'Line 1, GL Account: none → Meals']);

      await alert.getByRole('button', { name: 'Reload (discard mine)' }).click();
      await alert.waitFor({ state: 'detached' });
      const picker = ann.getByRole('combobox', { name: 'GL Account for line 1' });
      await eventually(() => picker.inputValue()).toBe('Meals');
      await expect(ann.getByRole('button', { name: 'Save coding' }).isDisabled()).resolves.toBe(true);
      // Gone for good: opened again, the record shows no draft of Ann's.
      await open(ann, name);
      await eventually(() => picker.inputValue()).toBe('Meals');
      expect(await ann.getByText('Draft restored', { exact: false }).count()).toBe(0);
      expect(await codingOf(ids[name]!)).toEqual([3, [['Meals']]]);
    });
  },
  { only: 'sqlite' },
);
