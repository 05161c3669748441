import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { freezeClock } from '../../src/lib/clock.js';
import { checkScreen, eventually, newContext, sharedBrowser, signInThroughForm } from '../support/browser.js';
import { newUser } from '../support/console.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { nextTotpStep, totpCode } from '../support/mfa.js';

// The server runs in this process (the built console, served by the app under test), so that its clock is the one
// the test moves: a code of the authenticator is computed for the step the service is at, whatever the machine's speed.
freezeClock();
const browser = sharedBrowser();

interface InProcessServer {
  ctx: TestContext;
  url: string;
  close(): Promise<void>;
}

async function startInProcess(): Promise<InProcessServer> {
  const ctx = await createTestContext('sqlite');
  try {
    const url = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    return { ctx, url, close: () => ctx.close() };
  } catch (error) {
    await ctx.close();
    throw error;
  }
}

async function signOut(page: Page, base: string): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await eventually(() => page.url()).toBe(`${base}/sign-in?signed_out=1`);
}

eachDialectWith(
  'two-step sign-in in a browser',
  () => startInProcess(),
  (server, dialect) => {
    const contexts: BrowserContext[] = [];
    let page: Page;
    const base = () => `${server().url}/console`;
    const newPage = async () => {
      const context = await newContext(browser());
      contexts.push(context);
      return context.newPage();
    };
    beforeEach(async () => {
      page = await newPage();
    });
    afterEach(async () => {
      for (const context of contexts.splice(0)) await context.close();
    });

    it('sets up an authenticator, signs in with its code, then with a recovery code once', async () => {
      const admin = await newUser(server().ctx.db, 'ACCOUNT_ADMIN');
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

      await page.getByRole('link', { name: 'Two-step sign-in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Two-step sign-in' }).waitFor();
      await page.getByText('Two-step sign-in is off: your password alone signs you in.').waitFor();
      await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
      const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' });
      await qr.waitFor();
      expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
      const secret = (await page.getByLabel('Key for your authenticator app').innerText()).replaceAll(' ', '');
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      await checkScreen(page, 'two-step-set-up', dialect);

      await page.getByLabel('Code from the app').fill('000000');
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('alert').filter({ hasText: 'The authenticator was not set up.' }).waitFor();
      await page.getByLabel('Code from the app').fill(totpCode(secret));
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
      const codes = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allInnerTexts();
      expect(codes).toHaveLength(10);
      await checkScreen(page, 'two-step-recovery-codes', dialect);
      await page.getByRole('button', { name: 'I have saved them' }).click();
      await page.getByText(/Two-step sign-in is on: .* 10 recovery codes left\./).waitFor();
      // Shown once: nowhere on the page any more.
      expect(await page.getByText(codes[0]!).count()).toBe(0);

      // The next sign-in asks for a code after the password.
      await signOut(page, base());
      nextTotpStep();
      await signInThroughForm(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Two-step sign-in' }).waitFor();
      await checkScreen(page, 'sign-in-code', dialect);
      await page.getByLabel('Authentication code').fill('123456');
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('alert').filter({ hasText: 'That code did not work.' }).waitFor();
      await page.getByLabel('Authentication code').fill(totpCode(secret));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

      // A lost phone: a recovery code signs in, once.
      await signOut(page, base());
      await signInThroughForm(page, admin);
      await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
      await page.getByLabel('Recovery code').fill(codes[0]!);
      await page.getByRole('button', { name: 'Verify' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'You signed in with a recovery code: it is used up. 9 recovery codes left.' })
        .waitFor();
      await signOut(page, base());
      await signInThroughForm(page, admin);
      await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
      await page.getByLabel('Recovery code').fill(codes[0]!);
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('alert').filter({ hasText: 'That code did not work.' }).waitFor();
      await page.getByRole('button', { name: 'Cancel and sign out' }).click();
      await eventually(() => page.url()).toBe(`${base()}/sign-in?signed_out=1`);
    });

    it("lets an admin require it: a user without it sets it up at sign-in before anything else; the admin resets a user's", async () => {
      const admin = await newUser(server().ctx.db, 'ACCOUNT_ADMIN');
      const bookkeeper = await newUser(server().ctx.db, 'BOOKKEEPER', admin.account_id);

      // The admin sets up two-step sign-in first, then requires it of everyone.
      await page.goto(`${base()}/two-step`);
      await signInThroughForm(page, admin);
      await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
      const secret = (await page.getByLabel('Key for your authenticator app').innerText()).replaceAll(' ', '');
      await page.getByLabel('Code from the app').fill(totpCode(secret));
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.getByRole('button', { name: 'I have saved them' }).click();

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
      await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
      const row = (email: string) => page.getByRole('row').filter({ hasText: email });
      await row(bookkeeper.email).getByText('Not set up').waitFor();
      await page.getByLabel('Require two-step sign-in for every user of this account').check();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved: two-step sign-in is required.' }).waitFor();
      await checkScreen(page, 'users', dialect);

      // The bookkeeper signs in: the set-up comes first, and nothing else is reachable until it is done.
      const other = await newPage();
      await other.goto(`${base()}/queue`);
      await signInThroughForm(other, bookkeeper);
      await other.getByRole('heading', { level: 1, name: 'Set up two-step sign-in' }).waitFor();
      await other.getByRole('status').filter({ hasText: 'Your account requires two-step sign-in.' }).waitFor();
      expect(other.url()).toBe(`${base()}/two-step/set-up?next=%2Fqueue`);
      await other.goto(`${base()}/fields`);
      await other.getByRole('heading', { level: 1, name: 'Set up two-step sign-in' }).waitFor();
      expect(await other.evaluate(async () => (await fetch('/internal/v1/accounting/records')).status)).toBe(401);
      await checkScreen(other, 'two-step-required', dialect);

      await other.getByRole('button', { name: 'Set up an authenticator app' }).click();
      const theirs = (await other.getByLabel('Key for your authenticator app').innerText()).replaceAll(' ', '');
      await other.getByLabel('Code from the app').fill(totpCode(theirs));
      await other.getByRole('button', { name: 'Confirm' }).click();
      await other.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
      await other.getByRole('button', { name: 'I have saved them: continue' }).click();
      await other.getByRole('heading', { level: 1, name: 'Fields' }).waitFor();
      expect(await other.evaluate(async () => (await fetch('/internal/v1/accounting/records')).status)).toBe(200);

      // The bookkeeper's phone is lost: the admin resets it; their session ends.
      await page.reload();
      await row(bookkeeper.email).getByText('Set up', { exact: true }).waitFor();
      await row(bookkeeper.email)
        .getByRole('button', { name: `Reset two-step sign-in of ${bookkeeper.email}` })
        .click();
      await page.getByRole('button', { name: `Yes, reset two-step sign-in of ${bookkeeper.email}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Two-step sign-in of ${bookkeeper.email} is reset` })
        .waitFor();
      await row(bookkeeper.email).getByText('Not set up').waitFor();
      expect(await other.evaluate(async () => (await fetch('/internal/v1/accounting/records')).status)).toBe(401);
      // Still required: their next sign-in sets up a new authenticator first.
      await other.goto(`${base()}/`);
      await signInThroughForm(other, bookkeeper);
      await other.getByRole('heading', { level: 1, name: 'Set up two-step sign-in' }).waitFor();
    });
  },
  { only: 'sqlite' },
);
