import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/src/webhooks.js';
import {
  API_SCOPES,
  checkScreen,
  eventually,
  newContext,
  sharedBrowser,
  screenshot,
  signIn,
  startConsoleServer,
  tableCells,
  textOf,
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { CEILING_MS } from '../support/wait.js';
import { startReceiver } from '../support/webhooks.js';

const browser = sharedBrowser();

const READY = 'accounting_record.ready_for_export';
const EXPORTED = 'accounting_record.exported';

/** The rows of the delivery log, as their cells' texts. */
const logRows = (page: Page) => tableCells(page, 'Delivery attempts, newest first');

eachDialectWith(
  'console webhooks in a browser, with a real receiver',
  // Allowed to deliver to the test's receiver on 127.0.0.1 over plain http, as development and tests set it.
  (dialect) => startConsoleServer(dialect, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await newContext(browser());
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server().url });
    });

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
        await screenshot(page, `failed-webhooks-${dialect}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
      }
    });

    afterAll(async () => {
      await context?.close();
    });

    // A long walk through the console: many waits, each bounded by the ceiling; the test's own, far above its pace.
    it(
      'an admin subscribes a receiver; an approval in the console arrives, verified with the SDK; the log shows it; edit, filter, rotate, redeliver, disable, delete',
      { timeout: 10 * CEILING_MS },
      async () => {
        const base = `${server().url}/console`;
        const accountId = newAccountId();
        const api = await server().apiClient(accountId, [...API_SCOPES, 'webhooks.write']);
        const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
        const receiver = await startReceiver();
        page = await signIn(context, base, admin);
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
        await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
        await page.getByText('The account has no webhook endpoints yet.').waitFor();
        await checkScreen(page, 'webhooks-empty', dialect);

        // Subscribe: the URL, a description, "ready for export" (ticked by default). The secret is shown once.
        const startedAt = new Date(Date.now() - 60_000);
        await page.getByLabel('Endpoint URL').fill(receiver.url);
        await page.getByLabel('Description (optional)').fill('ERP connector');
        await eventually(() => page.getByRole('checkbox', { name: new RegExp(`^${READY}`) }).isChecked()).toBe(true);
        await page.getByRole('button', { name: 'Create endpoint' }).click();
        await page.getByRole('heading', { level: 2, name: 'Endpoint created: copy its signing secret now' }).waitFor();
        const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
        expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        await page.getByRole('button', { name: 'Copy secret' }).click();
        await page.getByRole('status').filter({ hasText: 'The secret is copied to the clipboard.' }).waitFor();
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
        const [endpoint] = (await api.webhooks.list()).items;
        expect(endpoint).toMatchObject({
          url: receiver.url,
          description: 'ERP connector',
          event_types: [READY],
          status: 'ENABLED',
        });
        expect((await api.webhooks.secrets(endpoint!.id)).secrets).toEqual([{ secret, expires_at: null }]);
        await checkScreen(page, 'webhook-secret', dialect);
        await page.getByRole('button', { name: 'Done: hide the secret' }).click();
        await eventually(() => page.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0);
        await eventually(() => tableCells(page, 'Webhook endpoints of the account')).toEqual([
          [`${receiver.url}\nERP connector`, READY, 'Enabled', expect.stringMatching(/ UTC$/)],
        ]);
        await checkScreen(page, 'webhooks', dialect);

        // An approval in the console reaches the receiver; the connector verifies it with the SDK and fetches the
        // record (it reports the export further down).
        const [record] = (
          await api.review.createRecords([
            {
              type: 'CARD_PAYMENT',
              review_status: 'REVIEW',
              amount: { amount: 42.5, currency: 'USD' },
              posted_at: '2026-11-20T09:00:00Z',
            },
          ])
        ).items;
        await page.goto(`${base}/records/${record!.id}`);
        await page.getByRole('button', { name: 'Approve' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: 'Approved: the record is now Ready for export (version 2).' })
          .waitFor();
        await receiver.arrived(1);
        expect(receiver.received).toHaveLength(1);
        const ready = await verifyWebhook(secret, receiver.received[0]!.body, receiver.received[0]!.headers);
        expect(ready).toMatchObject({ type: READY, account_id: accountId, data: { id: record!.id, version: 2 } });
        const eventId = receiver.received[0]!.headers['webhook-id'] as string;
        expect((await api.events.list({ type: [READY] })).items.map((e) => e.id)).toEqual([eventId]);
        expect(await api.accountingRecords.get(record!.id)).toMatchObject({
          review_status: 'READY_FOR_EXPORT',
          version: 2,
        });

        // The endpoint's page: its settings and the attempt in the delivery log.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
        await page.getByRole('link', { name: receiver.url }).click();
        await page.getByRole('heading', { level: 1, name: 'ERP connector' }).waitFor();
        await page.getByRole('button', { name: 'Refresh the log' }).click();
        await eventually(() => logRows(page)).toEqual([
          [
            expect.stringMatching(/ UTC$/),
            `${READY}\n${eventId}`,
            'HTTP 200',
            'Delivered',
            expect.stringMatching(/^\d[\d,]* ms$/),
            'thanks',
            'Redeliver',
          ],
        ]);
        await checkScreen(page, 'webhook', dialect);

        // Edit: also "exported". A bad URL is refused: why, in words next to the URL; the request id in the notice.
        await page.getByRole('button', { name: 'Edit settings' }).click();
        await page.getByLabel('Endpoint URL').fill('ftp://erp.example.com/hooks');
        const refusedAnswer = page.waitForResponse(
          (res) => res.url().endsWith(`/v1/webhooks/${endpoint!.id}`) && res.request().method() === 'PUT',
        );
        await page.getByRole('button', { name: 'Save changes' }).click();
        const refused = await (await refusedAnswer).json();
        expect(refused.error_code).toBe('INVALID_REQUEST');
        expect(refused.details.url_refused).toMatchObject({ reason: 'scheme_not_allowed' });
        await eventually(() => textOf(page.getByRole('alert'))).toBe(
          `The endpoint was not saved.\nRequest id: ${refused.request_id}`,
        );
        const urlInput = page.getByLabel('Endpoint URL');
        expect(await urlInput.getAttribute('aria-invalid')).toBe('true');
        const errorId = (await urlInput.getAttribute('aria-describedby'))!.split(' ')[0]!;
        expect(await textOf(page.locator(`[id="${errorId}"]`))).toBe(
          'The address must start with https://: events are only sent over an encrypted connection.',
        );
        await page.getByLabel('Endpoint URL').fill(receiver.url);
        await page.getByRole('checkbox', { name: new RegExp(`^${EXPORTED}`) }).check();
        await page.getByRole('button', { name: 'Save changes' }).click();
        await page.getByRole('status').filter({ hasText: 'The endpoint is saved.' }).waitFor();
        expect((await api.webhooks.get(endpoint!.id)).event_types).toEqual([READY, EXPORTED]);

        // The export is reported: "exported" arrives; the log's filter by event type shows it alone.
        await api.accountingRecords.reportExportResults([
          { accounting_record_id: record!.id, success: { reference_id: 'JE-1' } },
        ]);
        await receiver.arrived(2);
        expect(receiver.received).toHaveLength(2);
        expect(await verifyWebhook(secret, receiver.received[1]!.body, receiver.received[1]!.headers)).toMatchObject({
          type: EXPORTED,
          data: { id: record!.id, version: 3 },
        });
        await page.getByLabel('Event type').selectOption(EXPORTED);
        await eventually(async () => (await logRows(page)).map((r) => r[1])).toEqual([
          `${EXPORTED}\n${receiver.received[1]!.headers['webhook-id']}`,
        ]);
        await page.getByLabel('Event type').selectOption('');
        await eventually(async () => (await logRows(page)).map((r) => r[1]!.split('\n')[0])).toEqual([EXPORTED, READY]);

        // Rotate: the new secret shown once; deliveries are signed with both for a day.
        await page.getByRole('button', { name: 'Rotate secret' }).click();
        await page.getByRole('button', { name: 'Yes, rotate the secret' }).click();
        await page.getByRole('heading', { level: 2, name: 'Secret rotated: copy the new one now' }).waitFor();
        const rotated = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
        expect(rotated).not.toBe(secret);
        expect((await api.webhooks.secrets(endpoint!.id)).secrets.map((s) => s.secret)).toEqual([rotated, secret]);
        await page.getByText(/^Deliveries also carry a signature with the previous secret until /).waitFor();
        await checkScreen(page, 'webhook-rotated', dialect);
        await page.getByRole('button', { name: 'Done: hide the secret' }).click();

        // Redeliver the approval: the same id again, signed with the new secret (and the old one).
        await page.getByRole('button', { name: `Redeliver ${eventId}` }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Event ${eventId} is queued for delivery again.` })
          .waitFor();
        await receiver.arrived(3);
        expect(receiver.received).toHaveLength(3);
        const again = receiver.received[2]!;
        expect(again.headers['webhook-id']).toBe(eventId);
        expect(String(again.headers['webhook-signature']).split(' ')).toHaveLength(2);
        expect(await verifyWebhook(rotated, again.body, again.headers)).toEqual(ready);
        expect(await verifyWebhook(secret, again.body, again.headers)).toEqual(ready);
        await page.getByRole('button', { name: 'Refresh the log' }).click();
        await eventually(async () => (await logRows(page)).map((r) => r[1]!.split('\n')[1])).toEqual([
          eventId,
          receiver.received[1]!.headers['webhook-id'],
          eventId,
        ]);

        // Redeliver every event since a time: both events of its types again.
        await page.getByLabel('Since (UTC)').fill(startedAt.toISOString().slice(0, 16));
        await page.getByRole('button', { name: 'Redeliver since then' }).click();
        await page.getByRole('status').filter({ hasText: '2 events are queued for delivery again.' }).waitFor();
        await receiver.arrived(5);
        expect(receiver.received).toHaveLength(5);
        // Sent side by side: in either order.
        expect(
          receiver.received
            .slice(3)
            .map((r) => r.headers['webhook-id'])
            .sort(),
        ).toEqual([eventId, receiver.received[1]!.headers['webhook-id']].sort());

        // Disable: the page says so and why; a new approval is not sent.
        await page.getByRole('button', { name: 'Disable endpoint' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: 'The endpoint is disabled: its deliveries wait until it is enabled again.' })
          .waitFor();
        await page.getByText('This endpoint is disabled: svc sends it nothing.').waitFor();
        await page.getByText(`Disabled by user ${admin.user_id}.`).first().waitFor();
        expect(await api.webhooks.get(endpoint!.id)).toMatchObject({
          status: 'DISABLED',
          disabled_reason: `Disabled by user ${admin.user_id}.`,
        });
        await checkScreen(page, 'webhook-disabled', dialect);
        // A second endpoint on a receiver of its own takes the same events: once it has the new one, the dispatcher
        // has fanned it out (one transaction for every endpoint behind) and made no delivery of it for this one.
        const witness = await startReceiver();
        const witnessHook = await api.webhooks.create({ url: witness.url, event_types: [READY] });
        const [later] = (
          await api.review.createRecords([
            {
              type: 'CARD_PAYMENT',
              review_status: 'READY_FOR_EXPORT',
              amount: { amount: 7, currency: 'USD' },
              posted_at: '2026-11-21T09:00:00Z',
            },
          ])
        ).items;
        expect(later).toBeDefined();
        await witness.arrived(1);
        expect(JSON.parse(witness.received[0]!.body).data).toMatchObject({ id: later!.id });
        const laterEvent = witness.received[0]!.headers['webhook-id'] as string;
        expect(
          await server()
            .db.direct.selectFrom('webhook_deliveries')
            .select('event_id')
            .where('endpoint_id', '=', endpoint!.id)
            .where('event_id', '=', laterEvent)
            .execute(),
        ).toEqual([]);
        expect(receiver.received).toHaveLength(5);
        await api.webhooks.delete(witnessHook.id);

        // Delete, after a confirmation: back to the list, empty again.
        await page.getByRole('button', { name: 'Delete endpoint' }).click();
        await page.getByRole('button', { name: 'Yes, delete the endpoint' }).click();
        await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
        await page.getByText('The account has no webhook endpoints yet.').waitFor();
        expect((await api.webhooks.list()).items).toEqual([]);
      },
    );
  },
  { only: 'sqlite' },
);
