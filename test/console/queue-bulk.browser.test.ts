import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { RecordCreate, SvcClient } from '../../client/src/index.js';
import {
  checkScreen,
  expectNoSeriousAxeViolations,
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually, shownRecordIds } from '../support/console-story.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();
const SUBMIT_FIRST = 'It is still in Prepare: it has to be submitted for review before it can be approved.';
const UNCODED = 'It lacks the coding required before approval: line 1 needs GL Account.';

eachDialectWith(
  'review queue: bulk actions that do what they say',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let api: SvcClient;
    const ids: Record<string, string> = {};
    const base = () => `${server().url}/console`;
    const stateOf = async (name: string) => {
      const record = await api.accountingRecords.get(ids[name]!);
      return [record.review_status, record.version];
    };
    const select = async (...names: string[]) => {
      for (const name of names) await page.getByRole('checkbox', { name: `Select record ${ids[name]}` }).check();
    };
    const panelItems = (verb: string) =>
      page
        .getByRole('list', { name: `Records that cannot be ${verb}` })
        .getByRole('listitem')
        .allInnerTexts();

    beforeAll(async () => {
      const accountId = newAccountId();
      api = await server().apiClient(accountId);
      const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      const [travel] = (await api.fieldValues.create(gl.svc_id, [{ value: 'Travel', remote_id: '6100' }])).items;
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
                  field_values: [{ field_id: gl.svc_id, svc_id: travel!.svc_id }],
                },
              ],
            }
          : {}),
      });
      const names = ['prepOne', 'prepTwo', 'prepBare', 'reviewCoded', 'reviewBare', 'ready'] as const;
      const created = await api.review.createRecords([
        record('Prep One', 'PREPARE', true),
        record('Prep Two', 'PREPARE', true),
        record('Prep Bare', 'PREPARE', false),
        record('Review Coded', 'REVIEW', true),
        record('Review Bare', 'REVIEW', false),
        record('Ready One', 'READY_FOR_EXPORT', true),
      ]);
      names.forEach((name, i) => (ids[name] = created.items[i]!.id));
      await api.review.setRequiredCoding([gl.svc_id]);

      const bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
      const context = await newContext(browser());
      page = await context.newPage();
      opened = { context, page };
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, bookkeeper);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });
    screenshotFailuresThenClose('queue-bulk', () => opened);

    it('approves the records that allow it; the others are listed in words; going on without them moves only those', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(async () => (await shownRecordIds(page)).length).toBe(6);
      await select('prepOne', 'prepBare', 'reviewCoded', 'reviewBare');
      await page.getByRole('button', { name: 'Approve' }).click();

      const panel = page.getByRole('region', { name: /^Nothing has moved yet/ });
      await eventually(() => textOf(panel.getByRole('heading'))).toBe(
        'Nothing has moved yet: 3 selected records of 4 cannot be approved.',
      );
      await expect(panelItems('approved')).resolves.toEqual([
        `Prep One ${ids.prepOne}: ${SUBMIT_FIRST}`,
        `Prep Bare ${ids.prepBare}: ${SUBMIT_FIRST}`,
        `Review Bare ${ids.reviewBare}: ${UNCODED}`,
      ]);
      await expect(textOf(panel.getByRole('paragraph'))).resolves.toBe(
        'Going on moves the other 1 record. Submit and approve first submits for review the 1 record that could then be approved.',
      );
      await checkScreen(page, 'queue-bulk-refusals', dialect);
      // Nothing moved while the user decides.
      for (const name of ['prepOne', 'prepBare', 'reviewCoded', 'reviewBare']) {
        expect(await stateOf(name)).toEqual([name.startsWith('prep') ? 'PREPARE' : 'REVIEW', 1]);
      }

      await panel.getByRole('button', { name: 'Go on without these' }).click();
      await page.getByRole('status').filter({ hasText: '1 record approved (now Ready for export).' }).waitFor();
      await expect(panel.count()).resolves.toBe(0);
      expect(await stateOf('reviewCoded')).toEqual(['READY_FOR_EXPORT', 2]);
      expect(await stateOf('prepOne')).toEqual(['PREPARE', 1]);
      expect(await stateOf('prepBare')).toEqual(['PREPARE', 1]);
      expect(await stateOf('reviewBare')).toEqual(['REVIEW', 1]);
      await expectNoSeriousAxeViolations(page, 'queue-bulk-done');
    });

    it('offers "Submit and approve" for PREPARE records the server says could be approved once submitted', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(async () => (await shownRecordIds(page)).length).toBe(6);
      await select('prepOne', 'prepTwo', 'prepBare');
      await page.getByRole('button', { name: 'Approve' }).click();
      const panel = page.getByRole('region', { name: /^Nothing has moved yet/ });
      await eventually(() => panelItems('approved')).toEqual([
        `Prep One ${ids.prepOne}: ${SUBMIT_FIRST}`,
        `Prep Two ${ids.prepTwo}: ${SUBMIT_FIRST}`,
        `Prep Bare ${ids.prepBare}: ${SUBMIT_FIRST}`,
      ]);
      // None may be approved as they are: nothing to go on with.
      await expect(panel.getByRole('button', { name: 'Go on without these' }).count()).resolves.toBe(0);
      await panel.getByRole('button', { name: 'Submit and approve' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: '2 records approved (now Ready for export), 2 of them submitted first.' })
        .waitFor();
      expect(await stateOf('prepOne')).toEqual(['READY_FOR_EXPORT', 3]);
      expect(await stateOf('prepTwo')).toEqual(['READY_FOR_EXPORT', 3]);
      // Lacking its coding, it could not have been approved: it was not submitted either.
      expect(await stateOf('prepBare')).toEqual(['PREPARE', 1]);
      const history = await api.review.history(ids.prepOne!, {});
      expect(history.items.map((e) => [e.type, e.changes])).toEqual([
        ['INGESTED', expect.anything()],
        ['MOVED', { review_status: { from: 'PREPARE', to: 'REVIEW' } }],
        ['MOVED', { review_status: { from: 'REVIEW', to: 'READY_FOR_EXPORT' } }],
      ]);
    });

    it('sends back only ever backward: each record one step back, a PREPARE record never forward', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(async () => (await shownRecordIds(page)).length).toBe(6);
      await select('prepBare', 'reviewBare', 'ready');
      await page.getByRole('button', { name: 'Send back' }).click();
      const panel = page.getByRole('region', { name: /^Nothing has moved yet/ });
      await eventually(() => textOf(panel.getByRole('heading'))).toBe(
        'Nothing has moved yet: 1 selected record of 3 cannot be sent back.',
      );
      await expect(panelItems('sent back')).resolves.toEqual([
        `Prep Bare ${ids.prepBare}: It is at the first step of review: there is nowhere to send it back to.`,
      ]);
      await expect(panel.getByRole('button', { name: 'Submit and approve' }).count()).resolves.toBe(0);
      await panel.getByRole('button', { name: 'Go on without these' }).click();
      const status = page.getByRole('status').filter({ hasText: 'sent back' });
      await status.waitFor();
      const words = await textOf(status);
      expect(words.split('. ').sort()).toEqual(['1 record sent back to Prepare', '1 record sent back to Review.']);
      expect(await stateOf('prepBare')).toEqual(['PREPARE', 1]);
      expect(await stateOf('reviewBare')).toEqual(['PREPARE', 2]);
      expect(await stateOf('ready')).toEqual(['REVIEW', 2]);
      await expectNoSeriousAxeViolations(page, 'queue-bulk-sent-back');
    });

    it('moves at once, all or nothing, when every selected record allows the move', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(async () => (await shownRecordIds(page)).length).toBe(6);
      await select('prepOne', 'prepTwo');
      await page.getByRole('button', { name: 'Send back' }).click();
      await page.getByRole('status').filter({ hasText: '2 records sent back to Review.' }).waitFor();
      await expect(page.getByRole('region', { name: /^Nothing has moved yet/ }).count()).resolves.toBe(0);
      expect(await stateOf('prepOne')).toEqual(['REVIEW', 4]);
      expect(await stateOf('prepTwo')).toEqual(['REVIEW', 4]);
    });
  },
  { only: 'sqlite' },
);
