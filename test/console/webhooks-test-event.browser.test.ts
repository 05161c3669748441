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
} from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { CEILING_MS } from '../support/wait.js';
import { startReceiver } from '../support/webhooks.js';

const browser = sharedBrowser();

eachDialectWith(
  'console: a test event from the webhook endpoint page, to a real receiver',
  (dialect) => startConsoleServer(dialect, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await newContext(browser());
    });

    afterEach(async (test) => {
      if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
        await screenshot(page, `failed-webhook-test-event-${dialect}`);
      }
    });

    afterAll(async () => {
      await context?.close();
    });

    it(
      'an admin sends a test event: the receiver verifies it, the log shows it as webhook.test; a disabled endpoint offers none',
      { timeout: 5 * CEILING_MS },
      async () => {
        const base = `${server().url}/console`;
        const accountId = newAccountId();
        const api = await server().apiClient(accountId, [...API_SCOPES, 'webhooks.write', 'events.read']);
        const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
        const receiver = await startReceiver();
        const hook = await api.webhooks.create({
          url: receiver.url,
          event_types: ['accounting_record.ready_for_export'],
          description: 'ERP connector',
        });
        page = await signIn(context, base, admin);
        await page.goto(`${base}/webhooks/${hook.id}`);
        await page.getByRole('heading', { level: 1, name: 'ERP connector' }).waitFor();

        const answer = page.waitForResponse(
          (res) => res.url().endsWith(`/v1/webhooks/${hook.id}/test`) && res.request().method() === 'POST',
        );
        await page.getByRole('button', { name: 'Send test event' }).click();
        const sent = await (await answer).json();
        expect(sent).toMatchObject({ type: 'webhook.test', data: { object: 'webhook_endpoint', id: hook.id } });
        await page
          .getByRole('status')
          .filter({ hasText: `Test event ${sent.id} is queued` })
          .waitFor();

        // The server's own dispatcher sends it, signed as every delivery.
        await receiver.arrived(1);
        expect(receiver.received[0]!.headers['webhook-id']).toBe(sent.id);
        expect(await verifyWebhook(hook.secret, receiver.received[0]!.body, receiver.received[0]!.headers)).toEqual(
          sent,
        );
        await page.getByLabel('Event type').selectOption('webhook.test');
        await page.getByRole('button', { name: 'Refresh the log' }).click();
        await eventually(async () =>
          (await tableCells(page, 'Delivery attempts, newest first')).map((row) => row.slice(1, 4)),
        ).toEqual([[`webhook.test\n${sent.id}`, 'HTTP 200', 'Delivered']]);
        await checkScreen(page, 'webhook-test-event', dialect);
        // Not an event of the account: the feed has none.
        expect((await api.events.list()).items).toEqual([]);

        await page.getByRole('button', { name: 'Disable endpoint' }).click();
        await page.getByText('A disabled endpoint is sent nothing: enable it to send a test event.').waitFor();
        await expect(page.getByRole('button', { name: 'Send test event' }).isDisabled()).resolves.toBe(true);
        expect(receiver.received).toHaveLength(1);
      },
    );
  },
  { only: 'sqlite' },
);
