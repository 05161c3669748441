import net, { type AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { freezeClock } from '../../src/lib/clock.js';
import { newContext, sharedBrowser, signInThroughForm } from '../support/browser.js';
import { expectAccessible } from '../support/console-a11y.js';
import { Browser, newUser } from '../support/console.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { addPasskey, enrolTotp, totpCode } from '../support/mfa.js';
import { SoftAuthenticator } from '../support/webauthn.js';

// The server runs in this process, on the clock the test freezes: a code of the authenticator is computed for the
// step the service is at.
freezeClock();
const browser = sharedBrowser();

interface InProcessServer {
  ctx: TestContext;
  /** http://localhost:<port>: a passkey's relying party is a domain (localhost), never an IP. */
  url: string;
  close(): Promise<void>;
}

async function startInProcess(): Promise<InProcessServer> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  const url = `http://localhost:${port}`;
  const ctx = await createTestContext('sqlite', { PUBLIC_URL: url });
  try {
    await ctx.app.listen({ host: '127.0.0.1', port });
    return { ctx, url, close: () => ctx.close() };
  } catch (error) {
    await ctx.close();
    throw error;
  }
}

/**
 * Issue 31: "axe: no violation of any impact on any page; every action reachable by keyboard alone", for the
 * screens of a sign-in's second step and of setting two-step sign-in up (the route `/two-step/set-up` a required
 * set-up opens, the QR code, the recovery codes shown once): axe at 1280 px and at 390 px, and Tab round every
 * control.
 */
eachDialectWith(
  'axe and the keyboard on the screens of two-step sign-in',
  () => startInProcess(),
  (server) => {
    let context: BrowserContext;
    let page: Page;
    const base = () => `${server().url}/console`;
    const secondStep = () => page.getByRole('heading', { level: 1, name: 'Two-step sign-in' }).waitFor();
    beforeEach(async () => {
      context = await newContext(browser());
      page = await context.newPage();
    });
    afterEach(async () => {
      await context.close();
    });

    it('finds nothing on the second step with a code, a recovery code, a refused code, and a passkey', async () => {
      const withApp = await newUser(server().ctx.db, 'BOOKKEEPER');
      await enrolTotp(await Browser.signIn(server().ctx.app, withApp));
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, withApp);
      await secondStep();
      await page.getByLabel('Authentication code').waitFor();
      await expectAccessible(page, 'the second step: the code from the app');
      await page.getByLabel('Authentication code').fill('000000');
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('alert').filter({ hasText: 'That code did not work.' }).waitFor();
      await expectAccessible(page, 'the second step: a refused code');
      await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
      await page.getByLabel('Recovery code').waitFor();
      await expectAccessible(page, 'the second step: a recovery code');

      const withKey = await newUser(server().ctx.db, 'BOOKKEEPER');
      await addPasskey(await Browser.signIn(server().ctx.app, withKey), new SoftAuthenticator(server().url));
      await context.clearCookies();
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, withKey);
      await secondStep();
      await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
      await expectAccessible(page, 'the second step: a passkey');
    });

    it('finds nothing on setting it up: on the two-step page, and on the set-up a requirement opens at sign-in', async () => {
      const admin = await newUser(server().ctx.db, 'ACCOUNT_ADMIN');
      await page.goto(`${base()}/two-step`);
      await signInThroughForm(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Two-step sign-in' }).waitFor();
      await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
      await page.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
      await expectAccessible(page, 'two-step: the QR code');
      const secret = (await page.getByLabel('Key for your authenticator app').innerText()).replaceAll(' ', '');
      await page.getByLabel('Code from the app').fill(totpCode(secret));
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
      await expectAccessible(page, 'two-step: the recovery codes');
      await page.getByRole('button', { name: 'I have saved them' }).click();
      await page.getByText(/Two-step sign-in is on/).waitFor();
      await page.goto(`${base()}/users`);
      await page.getByLabel('Require two-step sign-in for every user of this account').check();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved: two-step sign-in is required.' }).waitFor();

      const bookkeeper = await newUser(server().ctx.db, 'BOOKKEEPER', admin.account_id);
      const other = await newContext(browser());
      try {
        page = await other.newPage();
        await page.goto(`${base()}/queue`);
        await signInThroughForm(page, bookkeeper);
        await page.getByRole('heading', { level: 1, name: 'Set up two-step sign-in' }).waitFor();
        expect(page.url()).toBe(`${base()}/two-step/set-up?next=%2Fqueue`);
        await expectAccessible(page, '/two-step/set-up');
        await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
        const theirs = (await page.getByLabel('Key for your authenticator app').innerText()).replaceAll(' ', '');
        await expectAccessible(page, '/two-step/set-up: the QR code');
        await page.getByLabel('Code from the app').fill(totpCode(theirs));
        await page.getByRole('button', { name: 'Confirm' }).click();
        await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
        await expectAccessible(page, '/two-step/set-up: the recovery codes');
      } finally {
        await other.close();
      }
    });
  },
  { only: 'sqlite' },
);
