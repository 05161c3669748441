import type { BrowserContext, Page, Response } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { advanceClock, freezeClock } from '../../src/lib/clock.js';
import {
  DESKTOP,
  expectNoAxeViolations,
  expectNoHorizontalOverflow,
  newContext,
  PHONE,
  screenshotOfScreen,
  screenshotFailuresThenClose,
  sharedBrowser,
  signIn,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { eventually } from '../support/console-story.js';
import { startInProcess, drawn, thumbnailDrawn } from '../support/console-receipts.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { newJpeg, PDF, storedReceipts } from '../support/receipts.js';
import sharp from 'sharp';

// The server runs in this process (the built console, served by the app under test), on the clock the tests
// freeze: a signed link's expiry is measured on it, so a test moves past it without waiting.
freezeClock();
const browser = sharedBrowser();

const MAX_BYTES = 100_000;
const PER_RECORD = 3;
const TTL_SECONDS = 900;

const API = ['accounting.record.read', 'accounting.record.write', 'accounting.record.admin'] as const;

eachDialectWith(
  'record page: receipts seen, viewed, added and removed',
  () =>
    startInProcess({
      RECEIPT_MAX_BYTES: String(MAX_BYTES),
      RECEIPTS_PER_RECORD: String(PER_RECORD),
      RECEIPT_LINK_TTL_SECONDS: String(TTL_SECONDS),
    }),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let accountId: string;
    const ids: Record<string, string> = {};
    let bookkeeper: Awaited<ReturnType<typeof newUser>>;
    const base = () => `${server().url}/console`;
    const receiptsOf = async (name: string) => {
      const api = await server().ctx.as(API, accountId);
      const res = await api.get(`/v3/accounting/records/${ids[name]}`);
      expect(res.status, res.text).toBe(200);
      return (res.body.receipts ?? []).map((r: { id: string }) => r.id) as string[];
    };
    const tile = (name: RegExp | string) => page.getByRole('button', { name });
    const viewer = () => page.getByRole('dialog');
    const open = async (name: string) => {
      await page.goto(`${base()}/records/${encodeURIComponent(ids[name]!)}`);
      await page.getByRole('heading', { level: 2, name: 'Receipts' }).waitFor();
    };
    /** Each POST of a receipt the page sends, with its Idempotency-Key. */
    const uploads: string[] = [];

    beforeAll(async () => {
      accountId = newAccountId();
      const api = await server().ctx.as(API, accountId);
      const lunch = await api.newRecord({
        amount: { amount: 42, currency: 'USD' },
        review_status: 'REVIEW',
        vendor: { id: 'v_lunch', name: 'Lunch Place' },
      });
      ids.lunch = lunch.id;
      bookkeeper = await newUser(server().ctx.db, 'BOOKKEEPER', accountId);
      const context = await newContext(browser());
      page = await signIn(context, base(), bookkeeper);
      page.on('request', (request) => {
        if (request.method() === 'POST' && /\/receipts$/.test(new URL(request.url()).pathname)) {
          uploads.push(request.headers()['idempotency-key'] ?? '');
        }
      });
      opened = { context, page };
    });

    screenshotFailuresThenClose('receipts-failed', () => opened);

    it('attaches receipts chosen with the file picker and dropped on the receipts; thumbnails, a PDF tile', async () => {
      await open('lunch');
      await page.getByText('No receipt yet.').waitFor();
      const picker = page.getByLabel('Choose files');
      expect(await picker.getAttribute('accept')).toContain('application/pdf');
      expect(await page.getByLabel('Take a photo').getAttribute('capture')).toBe('environment');

      const jpeg = await newJpeg(400);
      const png = await sharp({ create: { width: 90, height: 140, channels: 3, background: '#3a6' } })
        .png()
        .toBuffer();
      await picker.setInputFiles([
        { name: 'lunch.jpg', mimeType: 'image/jpeg', buffer: jpeg },
        { name: 'taxi.png', mimeType: 'image/png', buffer: png },
      ]);
      await page.getByText('lunch.jpg is attached.').waitFor();
      await page.getByText('taxi.png is attached.').waitFor();

      // Dropped: the drop event a browser sends for a file dragged from the desktop.
      await page.getByRole('group', { name: 'Add receipts' }).evaluate(
        (zone, bytes) => {
          const data = new DataTransfer();
          data.items.add(new File([new Uint8Array(bytes)], 'invoice.pdf', { type: 'application/pdf' }));
          for (const type of ['dragenter', 'dragover', 'drop']) {
            zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
          }
        },
        [...PDF],
      );
      await page.getByText('invoice.pdf is attached.').waitFor();

      // Stored: three receipts of the record, each type recognised from its bytes; one key per upload.
      expect(await receiptsOf('lunch')).toHaveLength(3);
      const rows = await storedReceipts(server().ctx, accountId);
      expect(rows.map((r) => r.content_type).sort()).toEqual(['application/pdf', 'image/jpeg', 'image/png']);
      expect(uploads).toHaveLength(3);
      expect(new Set(uploads).size).toBe(3);
      for (const key of uploads) expect(key).toMatch(/^[0-9a-f-]{36}$/);

      // The tiles, in the record's order: two thumbnails drawn, and a PDF tile.
      await tile(/^View receipt 1 of 3: JPEG image, \d+ bytes$/).waitFor();
      await eventually(() => thumbnailDrawn(tile(/^View receipt 1 of 3/))).toBe(true);
      await eventually(() => thumbnailDrawn(tile(/^View receipt 2 of 3: PNG image/))).toBe(true);
      const pdfTile = tile(/^View receipt 3 of 3: PDF, \d+ bytes$/);
      expect(await thumbnailDrawn(pdfTile)).toBeNull();
      expect(await textOf(pdfTile)).toBe('PDF');
      await expectNoAxeViolations(page, 'record page with receipts');
      await screenshotOfScreen(page, 'receipts-record');
      // On a phone: the receipts and the upload fit the width.
      await page.setViewportSize(PHONE);
      try {
        await expectNoHorizontalOverflow(page, 'record page with receipts at 390 px');
        await expectNoAxeViolations(page, 'record page with receipts at 390 px');
        await screenshotOfScreen(page, 'receipts-record-phone');
      } finally {
        await page.setViewportSize(DESKTOP);
      }
    });

    it('says in plain words why a file was refused (type, size, count), and stores nothing of it', async () => {
      const picker = page.getByLabel('Choose files');
      await picker.setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') }]);
      await page
        .getByRole('alert')
        .filter({ hasText: 'notes.txt is not a file type receipts can be: send a JPEG, PNG or WebP photo, or a PDF.' })
        .waitFor();
      const big = Buffer.concat([await newJpeg(), Buffer.alloc(MAX_BYTES)]);
      await picker.setInputFiles([{ name: 'scan.jpg', mimeType: 'image/jpeg', buffer: big }]);
      await page
        .getByRole('alert')
        .filter({ hasText: 'scan.jpg is too large: a receipt can be at most 98 KB.' })
        .waitFor();
      await picker.setInputFiles([{ name: 'extra.jpg', mimeType: 'image/jpeg', buffer: await newJpeg() }]);
      await page
        .getByRole('alert')
        .filter({
          hasText: 'extra.jpg was not attached: this record has 3 receipts, the most it may have. Remove one first.',
        })
        .waitFor();
      expect(await receiptsOf('lunch')).toHaveLength(3);
      expect(await storedReceipts(server().ctx, accountId)).toHaveLength(3);
    });

    it('shows each receipt in a viewer: next and previous, zoom, rotate, a PDF inline; Escape closes it', async () => {
      await open('lunch');
      const first = tile(/^View receipt 1 of 3/);
      await first.click();
      await viewer()
        .getByRole('heading', { name: /^Receipt 1 of 3/ })
        .waitFor();
      // The focus is in the dialog, on its Close button.
      await eventually(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Close');
      const image = viewer().getByRole('img', { name: 'Receipt 1 of 3' });
      await eventually(() => drawn(image)).toBe(true);

      await page.keyboard.press('ArrowRight');
      await viewer()
        .getByRole('heading', { name: /^Receipt 2 of 3/ })
        .waitFor();
      await viewer().getByRole('button', { name: 'Next receipt' }).click();
      await viewer()
        .getByRole('heading', { name: /^Receipt 3 of 3/ })
        .waitFor();
      // The PDF in Chromium's own viewer, inside the frame (the download's sandboxing CSP does not stop it).
      const frame = viewer().getByTitle('Receipt 3 of 3 (PDF)');
      await frame.waitFor();
      await eventually(() => page.frames().some((f) => f.url().startsWith('chrome-extension://'))).toBe(true);
      expect(await viewer().getByRole('link', { name: 'Open PDF in a new tab' }).getAttribute('target')).toBe('_blank');
      await viewer().getByRole('button', { name: 'Previous receipt' }).click();
      await viewer()
        .getByRole('heading', { name: /^Receipt 2 of 3/ })
        .waitFor();
      await page.keyboard.press('ArrowLeft');
      await viewer()
        .getByRole('heading', { name: /^Receipt 1 of 3/ })
        .waitFor();

      await viewer().getByRole('button', { name: 'Zoom in' }).click();
      await viewer().getByText('Zoom 150%, turned 0 degrees.').waitFor();
      await viewer().getByRole('button', { name: 'Rotate' }).click();
      await viewer().getByText('Zoom 150%, turned 90 degrees.').waitFor();
      await page.keyboard.press('r');
      await page.keyboard.press('-');
      await viewer().getByText('Zoom 100%, turned 180 degrees.').waitFor();
      expect(await image.evaluate((img) => getComputedStyle(img).transform)).toMatch(/^matrix\(-1, /);
      await expectNoAxeViolations(page, 'record page with the receipt viewer open');
      await screenshotOfScreen(page, 'receipts-viewer');
      await page.setViewportSize(PHONE);
      try {
        await expectNoHorizontalOverflow(page, 'the receipt viewer at 390 px');
        await screenshotOfScreen(page, 'receipts-viewer-phone');
      } finally {
        await page.setViewportSize(DESKTOP);
      }

      await page.keyboard.press('Escape');
      await viewer().waitFor({ state: 'detached' });
      await eventually(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toMatch(
        /^View receipt 1 of 3/,
      );
    });

    it('reads the record again when a link has expired, and shows the receipt instead of a broken image', async () => {
      // Links of a second of their own: none of them is in the browser's cache (max-age=60) from the tests before.
      advanceClock(2_000_000);
      await open('lunch');
      await eventually(() => thumbnailDrawn(tile(/^View receipt 1 of 3/))).toBe(true);
      const answers: { path: string; method: string; status: number }[] = [];
      const onResponse = (response: Response) => {
        const url = new URL(response.url());
        if (url.pathname.startsWith('/internal/v1/receipts/')) {
          const method = response.request().method();
          answers.push({ path: url.pathname.replace(/^.*\//, ''), method, status: response.status() });
        }
      };
      page.on('response', onResponse);
      try {
        // The page's links are now past their time.
        advanceClock((TTL_SECONDS + 1) * 1_000_000);
        await tile(/^View receipt 1 of 3/).click();
        const image = viewer().getByRole('img', { name: 'Receipt 1 of 3' });
        await eventually(() => drawn(image)).toBe(true);
        const content = answers.filter((a) => a.path === 'content').map((a) => a.status);
        expect(content[0]).toBe(403);
        expect(content.at(-1)).toBe(200);
        expect(await viewer().getByRole('alert').count()).toBe(0);
        await page.keyboard.press('Escape');
        await viewer().waitFor({ state: 'detached' });

        // A PDF's link is asked (HEAD) before it is framed: past its time, the record is read again, then framed.
        answers.length = 0;
        advanceClock((TTL_SECONDS + 1) * 1_000_000);
        await tile(/^View receipt 3 of 3/).click();
        const frame = viewer().getByTitle('Receipt 3 of 3 (PDF)');
        await frame.waitFor();
        const asked = () => answers.filter((a) => a.path === 'content');
        expect(asked()[0]).toEqual({ path: 'content', method: 'HEAD', status: 403 });
        await eventually(() => asked().at(-1)).toEqual({ path: 'content', method: 'GET', status: 200 });
        await page.keyboard.press('Escape');
        await viewer().waitFor({ state: 'detached' });
      } finally {
        page.off('response', onResponse);
      }
    });

    it('removes a receipt after asking in place; the record keeps the change', async () => {
      await open('lunch');
      const before = await receiptsOf('lunch');
      await page.getByRole('button', { name: 'Remove receipt 2 of 3' }).click();
      const question = page.getByRole('group', { name: 'Remove receipt 2 of 3?' });
      await question.getByRole('button', { name: 'Keep it' }).click();
      await question.waitFor({ state: 'detached' });
      expect(await receiptsOf('lunch')).toEqual(before);

      await page.getByRole('button', { name: 'Remove receipt 2 of 3' }).click();
      await page.getByRole('button', { name: 'Yes, remove receipt 2 of 3' }).click();
      await tile(/^View receipt 2 of 2: PDF/).waitFor();
      expect(await receiptsOf('lunch')).toEqual([before[0], before[2]]);
      await page.getByRole('list', { name: 'Stored receipts' }).getByRole('listitem').first().waitFor();
      expect(await page.getByRole('list', { name: 'Stored receipts' }).getByRole('listitem').count()).toBe(2);
    });
  },
  { only: 'sqlite' },
);
