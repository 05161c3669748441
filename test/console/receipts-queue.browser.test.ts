import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { RecordCreate, SvcClient } from '../../client/src/index.js';
import {
  newContext,
  screenshotFailuresThenClose,
  sharedBrowser,
  signIn,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually, shownRecordIds } from '../support/console-story.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { newJpeg, PDF } from '../support/receipts.js';

const browser = sharedBrowser();

eachDialectWith(
  'review queue: receipts marked per row and filtered; a read-only user sees receipts and adds none',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let api: SvcClient;
    const ids: Record<string, string> = {};
    let reader: Awaited<ReturnType<typeof newUser>>;
    const base = () => `${server().url}/console`;
    const rowOf = (name: string) => page.getByRole('row').filter({ hasText: ids[name] });
    const shownSorted = async () => (await shownRecordIds(page)).sort();
    const sorted = (...names: string[]) => names.map((name) => ids[name]!).sort();

    beforeAll(async () => {
      const accountId = newAccountId();
      api = await server().apiClient(accountId);
      const record = (vendor: string, extra: Partial<RecordCreate> = {}): RecordCreate => ({
        type: 'CARD_EXPENSE_POST',
        amount: { amount: 42, currency: 'USD' },
        posted_at: '2026-06-11T09:00:00Z',
        review_status: 'REVIEW',
        vendor: { id: `v_${vendor}`, name: vendor },
        ...extra,
      });
      const { items } = await api.review.createRecords([
        record('Lunch Place'),
        record('Coffee Cart'),
        record('Hotel Ten', {
          receipts: [{ id: 'rc_hotel', download_uris: ['https://receipts.example.invalid/rc_hotel.pdf'] }],
        }),
        record('Taxi Co'),
      ]);
      for (const [i, name] of ['lunch', 'coffee', 'hotel', 'taxi'].entries()) ids[name] = items[i]!.id;
      await api.receipts.upload(ids.lunch!, new Uint8Array(await newJpeg()), { contentType: 'image/jpeg' });
      await api.receipts.upload(ids.lunch!, new Uint8Array(PDF), { contentType: 'application/pdf' });
      // Attached, then removed: a record without a receipt again.
      const { receipt } = await api.receipts.upload(ids.taxi!, new Uint8Array(await newJpeg()));
      await api.receipts.remove(ids.taxi!, receipt.id);
      const bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
      reader = await newUser(server().db, 'READ_ONLY', accountId);
      const context = await newContext(browser());
      page = await signIn(context, base(), bookkeeper);
      opened = { context, page };
    });

    screenshotFailuresThenClose('receipts-queue-failed', () => opened);

    it('marks each row with its receipts and filters the queue by missing or present receipts', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(shownSorted).toEqual(sorted('lunch', 'coffee', 'hotel', 'taxi'));
      expect(await rowOf('lunch').getByText('2 receipts', { exact: true }).count()).toBe(1);
      expect(await rowOf('hotel').getByText('1 receipt', { exact: true }).count()).toBe(1);
      expect(await rowOf('coffee').getByText('No receipt', { exact: true }).count()).toBe(1);
      expect(await rowOf('taxi').getByText('No receipt', { exact: true }).count()).toBe(1);

      const filter = () => page.getByLabel('Receipts', { exact: true });
      await filter().selectOption({ label: 'Missing receipt' });
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await eventually(shownSorted).toEqual(sorted('coffee', 'taxi'));
      expect(new URL(page.url()).searchParams.get('receipt')).toBe('missing');

      await filter().selectOption({ label: 'Has receipt' });
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await eventually(shownSorted).toEqual(sorted('lunch', 'hotel'));
      expect(new URL(page.url()).searchParams.get('receipt')).toBe('present');
      // The URL carries the filter: opened again, the queue shows the same.
      await page.reload();
      await eventually(shownSorted).toEqual(sorted('lunch', 'hotel'));
      expect(await filter().inputValue()).toBe('present');
      // Cleared: every record again.
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await eventually(shownSorted).toEqual(sorted('lunch', 'coffee', 'hotel', 'taxi'));
      expect(new URL(page.url()).searchParams.get('receipt')).toBeNull();
    });

    it('gives a read-only user the receipts to look at, and no way to add or remove one', async () => {
      const context = await newContext(browser());
      try {
        const other = await signIn(context, base(), reader);
        await other.goto(`${base()}/records/${encodeURIComponent(ids.lunch!)}`);
        await other.getByRole('button', { name: /^View receipt 1 of 2: JPEG image/ }).waitFor();
        await other.getByRole('button', { name: /^View receipt 2 of 2: PDF/ }).waitFor();
        expect(await other.getByRole('group', { name: 'Add receipts' }).count()).toBe(0);
        expect(await other.getByLabel('Choose files').count()).toBe(0);
        expect(await other.getByRole('button', { name: /^Remove receipt/ }).count()).toBe(0);
        await other.getByRole('button', { name: /^View receipt 1 of 2/ }).click();
        await other
          .getByRole('dialog')
          .getByRole('heading', { name: /^Receipt 1 of 2/ })
          .waitFor();
        // The receipt a source system sent with its own link is a link.
        await other.goto(`${base()}/records/${encodeURIComponent(ids.hotel!)}`);
        const external = other.getByRole('list', { name: 'Receipts from the source system' });
        expect(await external.getByRole('link', { name: 'Open it' }).getAttribute('href')).toBe(
          'https://receipts.example.invalid/rc_hotel.pdf',
        );
      } finally {
        await context.close();
      }
    });
  },
  { only: 'sqlite' },
);
