import type { BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SvcClient } from '../../client/src/index.js';
import {
  API_SCOPES,
  eventually,
  expectNoAxeViolations,
  newContext,
  sharedBrowser,
  signInThroughForm,
  startConsoleServer,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/** 2,500 rows (three requests: 1,000, 1,000 and 500): odd ones without a remote_id, which only the import can tell apart. */
const ROWS = 2500;
const FILE = [
  'value,remote_id',
  ...Array.from({ length: ROWS }, (_, i) => (i % 2 === 0 ? `Value ${i + 1},` : `Value ${i + 1},R-${i + 1}`)),
].join('\n');

/** Every value of the field, as [value, remote_id], in creation order. */
async function allValues(api: SvcClient, fieldId: string): Promise<[string, string | null][]> {
  const out: [string, string | null][] = [];
  for await (const v of api.fieldValues.listAll(fieldId, { limit: 1000 })) out.push([v.value, v.remote_id]);
  return out;
}

eachDialectWith(
  'the CSV import, interrupted and resumed, in a browser',
  (dialect) => startConsoleServer(dialect),
  (server) => {
    let context: BrowserContext;
    let api: SvcClient;
    let admin: Awaited<ReturnType<typeof newUser>>;

    beforeAll(async () => {
      const accountId = newAccountId();
      api = await server().apiClient(accountId, [...API_SCOPES]);
      admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
      context = await newContext(browser());
    });

    afterAll(async () => {
      await context?.close();
    });

    const open = async (fieldId: string, name: string): Promise<Page> => {
      const page = await context.newPage();
      await page.goto(`${server().url}/console/fields/${fieldId}`);
      // Whichever the console draws first: the sign-in form (a new context) or the field (signed in already).
      const field = page.getByRole('heading', { level: 1, name });
      await page.getByLabel('Email').or(field).first().waitFor();
      if (await page.getByLabel('Email').count()) await signInThroughForm(page, admin);
      await field.waitFor();
      return page;
    };
    const choose = async (page: Page) => {
      await page
        .getByLabel('CSV file')
        .setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(FILE) });
      await page.getByRole('status', { name: 'Import preview' }).waitFor();
    };

    it('goes on from the first row not applied after the tab closed mid-request, storing no row twice', async () => {
      const field = await api.fields.create({ name: 'Cost centre', group: 'ERP' });
      const first = await open(field.svc_id, 'Cost centre');

      // The first request is answered; the second reaches the service and is stored, but the tab is closed
      // before its answer arrives.
      let posts = 0;
      let closed!: () => void;
      const tabClosed = new Promise<void>((resolve) => (closed = resolve));
      await first.route(`**/v1/fields/${field.svc_id}/values`, async (route: Route) => {
        if (route.request().method() !== 'POST') return route.continue();
        posts += 1;
        if (posts === 1) return route.continue();
        await route.fetch();
        closed();
      });
      await choose(first);
      await first.getByRole('button', { name: `Import ${ROWS.toLocaleString('en-US')} rows` }).click();
      await tabClosed;
      await first.close({ runBeforeUnload: false });
      expect(await allValues(api, field.svc_id)).toHaveLength(2000);

      // Back on the field's page: the unfinished import is said; chosen again, the file resumes at row 1,002 (the
      // header is row 1; rows 2 to 1,001 were answered, the lost request's rows follow).
      const page = await open(field.svc_id, 'Cost centre');
      const offer = page.getByRole('region', { name: 'Unfinished import' });
      await offer.getByText('Choose big.csv again to resume from the first row not applied.').waitFor();
      await expect(offer.innerText()).resolves.toContain('1,000 of 2,500 rows to send were answered');
      await choose(page);
      // A fresh import of it would store the rows without a remote_id again: only Resume is offered.
      await expect(page.getByRole('button', { name: /^Import [\d,]+ rows$/ }).isDisabled()).resolves.toBe(true);
      await expect(offer.innerText()).resolves.toContain('never came: it is sent again first under the same key');
      await expectNoAxeViolations(page, 'an unfinished import offered to resume');

      const replays: string[] = [];
      page.on('response', (res) => {
        if (res.request().method() === 'POST' && res.url().includes('/values')) {
          replays.push(res.headers()['idempotent-replayed'] ?? 'false');
        }
      });
      // Resumed from the keyboard alone.
      await page.getByRole('button', { name: 'Resume from row 1,002' }).focus();
      await page.keyboard.press('Enter');
      const report = page.getByRole('status').filter({ hasText: 'Import finished' });
      await report.waitFor();
      await expect(report.innerText()).resolves.toBe(
        'Import finished: 1,500 values created, 0 updated, 0 unchanged, 0 skipped, 0 invalid, 0 refused, 1,000 answered before resuming.',
      );
      // The lost request went again under its key: answered as stored, not stored again; then the last 500.
      expect(replays).toEqual(['true', 'false']);

      const stored = await allValues(api, field.svc_id);
      expect(stored).toHaveLength(ROWS);
      expect(stored).toEqual(
        Array.from({ length: ROWS }, (_, i) => [`Value ${i + 1}`, i % 2 === 0 ? null : `R-${i + 1}`]),
      );

      // Finished: nothing is left to resume.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Cost centre' }).waitFor();
      await expect(page.getByRole('region', { name: 'Unfinished import' }).count()).resolves.toBe(0);
    });

    it('forgets an unfinished import on request, and then imports the file afresh', async () => {
      const field = await api.fields.create({ name: 'Project', group: 'ERP' });
      const page = await open(field.svc_id, 'Project');
      await page.evaluate(
        ([id]) =>
          localStorage.setItem(
            `svc.console.import.${id}`,
            JSON.stringify({
              fingerprint: 'x',
              fileName: 'old.csv',
              mode: 'skip',
              done: [[2, 3]],
              inFlight: null,
              total: 9,
            }),
          ),
        [field.svc_id],
      );
      await page.reload();
      const offer = page.getByRole('region', { name: 'Unfinished import' });
      await offer.getByText('Choose old.csv again to resume from the first row not applied.').waitFor();
      await choose(page);
      // Another file: no resume offered for it, and nothing imported until the old one is forgotten.
      await expect(offer.getByRole('button', { name: /^Resume/ }).count()).resolves.toBe(0);
      await offer.getByRole('button', { name: 'Forget it and start over' }).click();
      await eventually(() => offer.count()).toBe(0);
      await page.getByRole('button', { name: `Import ${ROWS.toLocaleString('en-US')} rows` }).click();
      await page.getByRole('status').filter({ hasText: 'Import finished' }).waitFor();
      await expect(allValues(api, field.svc_id)).resolves.toHaveLength(ROWS);
      await expect(
        page.evaluate(([id]) => localStorage.getItem(`svc.console.import.${id}`), [field.svc_id]),
      ).resolves.toBeNull();
    });
  },
  { only: 'sqlite' },
);
