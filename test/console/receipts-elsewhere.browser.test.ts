import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { newContext, screenshotFailuresThenClose, sharedBrowser, signIn } from '../support/browser.js';
import { newUser } from '../support/console.js';
import { startInProcess } from '../support/console-receipts.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { newJpeg, storedLinks, storedReceipts, uploadRaw } from '../support/receipts.js';

const browser = sharedBrowser();

const API = ['accounting.record.read', 'accounting.record.write', 'accounting.record.admin'] as const;

eachDialectWith(
  'record page: a file that is a receipt of another record already',
  () => startInProcess(),
  (server) => {
    let opened: { context: BrowserContext; page: Page } | undefined;
    let page: Page;
    let accountId: string;
    const ids: Record<string, string> = {};
    let scan: Buffer;

    beforeAll(async () => {
      accountId = newAccountId();
      const api = await server().ctx.as(API, accountId);
      for (const name of ['lunch', 'taxi']) {
        const record = await api.newRecord({
          amount: { amount: 42, currency: 'USD' },
          review_status: 'REVIEW',
          vendor: { id: `v_${name}`, name },
        });
        ids[name] = record.id;
      }
      // The scan is a receipt of the lunch already (uploaded by an integration).
      scan = await newJpeg();
      const res = await uploadRaw(api, ids.lunch!, scan, 'image/jpeg');
      expect(res.status, res.text).toBe(200);
      const bookkeeper = await newUser(server().ctx.db, 'BOOKKEEPER', accountId);
      const context = await newContext(browser());
      page = await signIn(context, `${server().url}/console`, bookkeeper);
      opened = { context, page };
    });

    screenshotFailuresThenClose('receipts-elsewhere-failed', () => opened);

    it('says which record has the file and that a receipt belongs to one record; attaches nothing', async () => {
      await page.goto(`${server().url}/console/records/${encodeURIComponent(ids.taxi!)}`);
      await page.getByRole('heading', { level: 2, name: 'Receipts' }).waitFor();
      await page.getByText('No receipt yet.').waitFor();
      const before = await storedLinks(server().ctx, accountId);

      await page.getByLabel('Choose files').setInputFiles([{ name: 'scan.jpg', mimeType: 'image/jpeg', buffer: scan }]);
      await page
        .getByRole('alert')
        .filter({
          hasText:
            `scan.jpg was not attached: the same file is a receipt of record ${ids.lunch} already, and a receipt ` +
            'belongs to one record. Remove it there first if it was attached by mistake.',
        })
        .waitFor();
      // The page still shows no receipt, and nothing changed: the one receipt, on the lunch alone.
      await page.getByText('No receipt yet.').waitFor();
      expect(await page.getByText('scan.jpg is attached.').count()).toBe(0);
      expect(await storedLinks(server().ctx, accountId)).toEqual(before);
      expect(before.map((l) => l.record_id)).toEqual([ids.lunch]);
      expect(await storedReceipts(server().ctx, accountId)).toHaveLength(1);
    });
  },
  { only: 'sqlite' },
);
