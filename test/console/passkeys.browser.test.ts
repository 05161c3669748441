import net, { type AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { freezeClock } from '../../src/lib/clock.js';
import { checkScreen, eventually, newContext, sharedBrowser, signInThroughForm } from '../support/browser.js';
import { newUser } from '../support/console.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';
import { storedPasskeys } from '../support/mfa.js';

// The server runs in this process, on the clock the tests freeze (a challenge's expiry is measured on it).
freezeClock();
const browser = sharedBrowser();

/** A port free now, for a server whose PUBLIC_URL must name it before it listens. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface InProcessServer {
  ctx: TestContext;
  /** http://localhost:<port>: WebAuthn takes a domain as the RP id (localhost is one, and a secure context), no IP */
  url: string;
  close(): Promise<void>;
}

async function startInProcess(): Promise<InProcessServer> {
  const port = await freePort();
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

/** Chromium's virtual authenticator (DevTools protocol): a platform passkey whose user is always verified. */
async function withVirtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials };
}

async function signOut(page: Page, base: string): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await eventually(() => page.url()).toBe(`${base}/sign-in?signed_out=1`);
}

eachDialectWith(
  'passkeys in a browser',
  () => startInProcess(),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;
    const base = () => `${server().url}/console`;
    beforeEach(async () => {
      context = await newContext(browser());
      page = await context.newPage();
    });
    afterEach(async () => {
      await context.close();
    });

    it('adds a passkey with a name, signs in with it after the password, and removes it', async () => {
      const authenticator = await withVirtualAuthenticator(context, page);
      const admin = await newUser(server().ctx.db, 'ACCOUNT_ADMIN');
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

      await page.getByRole('link', { name: 'Two-step sign-in' }).click();
      await page.getByRole('heading', { level: 2, name: 'Passkeys and security keys' }).waitFor();
      await page.getByText('You have no passkey yet.').waitFor();
      await page.getByLabel('Name of the passkey').fill('Work laptop');
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      // The first second factor comes with recovery codes, shown once.
      await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
      expect(await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count()).toBe(10);
      await page.getByRole('button', { name: 'I have saved them' }).click();
      await page.getByText(/Two-step sign-in is on: .* one of your passkeys\. 10 recovery codes left\./).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'Work laptop' });
      await row.getByText('Never').waitFor();
      expect(await authenticator.credentials()).toHaveLength(1);
      // The credential the authenticator holds is the one stored (DevTools names it in base64, svc in base64url).
      const held = Buffer.from((await authenticator.credentials())[0]!.credentialId, 'base64').toString('base64url');
      expect(await storedPasskeys(server().ctx, admin.user_id)).toEqual([
        expect.objectContaining({ name: 'Work laptop', credential_id: held }),
      ]);
      await checkScreen(page, 'two-step-passkeys', dialect);

      // The next sign-in asks for the passkey after the password.
      await signOut(page, base());
      await signInThroughForm(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Two-step sign-in' }).waitFor();
      await page.getByRole('button', { name: 'Use a recovery code instead' }).waitFor();
      await checkScreen(page, 'sign-in-passkey', dialect);
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      expect((await authenticator.credentials())[0]!.signCount).toBeGreaterThan(0);

      // Removed, it no longer signs in, and (the last factor, nothing required) two-step sign-in is off.
      await page.getByRole('link', { name: 'Two-step sign-in' }).click();
      await row.getByText('Never').waitFor({ state: 'detached' });
      await row.getByRole('button', { name: 'Remove the passkey Work laptop' }).click();
      await page.getByRole('button', { name: 'Yes, remove the passkey Work laptop' }).click();
      await page.getByText('You have no passkey yet.').waitFor();
      await page.getByText('Two-step sign-in is off: your password alone signs you in.').waitFor();
      expect(await storedPasskeys(server().ctx, admin.user_id)).toEqual([]);
      await signOut(page, base());
      await signInThroughForm(page, admin);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    });
  },
  { only: 'sqlite' },
);
