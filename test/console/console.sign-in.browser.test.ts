import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { throttleKeys } from '../../src/modules/users/sign-in-throttle.js';
import { usersService } from '../../src/modules/users/users.service.js';
import { checkScreen, sharedBrowser, signInThroughForm, startConsoleServer, textOf } from '../support/browser.js';
import { consoleStory, eventually } from '../support/console-story.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

eachDialectWith(
  'console in a browser',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    const story = consoleStory(server, dialect, browser, { signedIn: false });
    const { r, base } = story;
    let page: Page;
    let accountId: string;
    let bookkeeper: { email: string; password: string; user_id: string };
    beforeAll(() => {
      ({ page, accountId, bookkeeper } = story.opened());
    });

    it('sends a signed-out visitor to sign in, says a wrong password is wrong, then brings them where they were going', async () => {
      await page.goto(`${base()}/queue`);
      await eventually(() => page.url()).toBe(`${base()}/sign-in?next=%2Fqueue`);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign in');
      await page.getByRole('status').filter({ hasText: 'Sign in to continue.' }).waitFor();
      await checkScreen(page, 'sign-in', dialect);

      const refused = page.waitForResponse(
        (res) => res.url().endsWith('/auth/session') && res.request().method() === 'POST',
      );
      await signInThroughForm(page, { email: bookkeeper.email, password: 'not the password at all' });
      const answer = await (await refused).json();
      expect(answer.error_code).toBe('INVALID_CREDENTIALS');
      const alert = page.getByRole('alert');
      await eventually(() => textOf(alert)).toBe(
        `The email or password is incorrect.\nRequest id: ${answer.request_id}`,
      );
      await checkScreen(page, 'sign-in-refused', dialect);

      await signInThroughForm(page, bookkeeper);
      await eventually(() => page.url()).toBe(`${base()}/queue`);
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
      expect(await page.getByRole('banner').textContent()).toContain(`Signed in as ${bookkeeper.email} (Bookkeeper)`);
    });

    it('signs out: the session ends, and every page then sends you to sign in', async () => {
      await page.goto(`${base()}/`);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await eventually(() => page.url()).toBe(`${base()}/sign-in?signed_out=1`);
      await page.getByRole('status').filter({ hasText: 'You are signed out.' }).waitFor();
      expect(await page.evaluate(async () => (await fetch('/auth/session')).status)).toBe(401);

      await page.goto(`${base()}/records/${encodeURIComponent(r.uncoded!.id)}`);
      await eventually(() => page.url()).toBe(
        `${base()}/sign-in?next=${encodeURIComponent(`/records/${encodeURIComponent(r.uncoded!.id)}`)}`,
      );
      await page.goto(`${base()}/`);
      await eventually(() => page.url()).toBe(`${base()}/sign-in`);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    });

    it('sets a password from a one-time link, then signs in with it; a throttled sign-in says for how long', async () => {
      const email = `new.${dialect}@example.com`;
      const link = await usersService.create(server().db, { accountId, email, role: 'BOOKKEEPER' });
      await page.goto(`${base()}/set-password#token=${encodeURIComponent(link.token)}`);
      await page.getByRole('heading', { level: 1, name: 'Set your password' }).waitFor();
      // The token is taken out of the address bar (and the history) once read.
      expect(page.url()).toBe(`${base()}/set-password`);
      await checkScreen(page, 'set-password', dialect);

      await page.getByLabel('New password', { exact: true }).fill('a long enough password');
      await page.getByLabel('Confirm new password').fill('a different password');
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByRole('alert').filter({ hasText: 'The two passwords do not match.' }).waitFor();

      await page.getByLabel('Confirm new password').fill('a long enough password');
      await page.getByRole('button', { name: 'Set password' }).click();
      await eventually(() => page.url()).toBe(`${base()}/sign-in?password=set`);
      await page.getByRole('status').filter({ hasText: 'Your password is set. Sign in with it.' }).waitFor();
      await signInThroughForm(page, { email, password: 'a long enough password' });
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await eventually(() => page.url()).toBe(`${base()}/sign-in?signed_out=1`);

      // The link worked once.
      await page.goto(`${base()}/set-password#token=${encodeURIComponent(link.token)}`);
      await page.getByLabel('New password', { exact: true }).fill('another long password');
      await page.getByLabel('Confirm new password').fill('another long password');
      await page.getByRole('button', { name: 'Set password' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: 'This password link is unknown, already used or expired; ask for a new one.' })
        .filter({ hasText: /Request id: \S+/ })
        .waitFor();

      await page.goto(`${base()}/sign-in`);
      // The first failures are answered as wrong (sign-in-throttle.test.ts drives the delays that follow).
      for (let attempt = 1; attempt <= 2; attempt++) {
        const answered = page.waitForResponse(
          (res) => res.url().endsWith('/auth/session') && res.request().method() === 'POST',
        );
        await signInThroughForm(page, { email, password: `wrong password ${attempt}` });
        const body = await (await answered).json();
        expect(body.error_code).toBe('INVALID_CREDENTIALS');
        await page
          .getByRole('alert')
          .filter({ hasText: `Request id: ${body.request_id}` })
          .waitFor();
      }
      // As after many more from this browser's address: sign-in is refused for 15 minutes, the right password too.
      await server()
        .db.direct.insertInto('sign_in_throttles')
        .values({
          throttle_key: throttleKeys.password(email, '127.0.0.1').pair.hash,
          failures: 15,
          blocked_until: Date.now() * 1000 + 900_000_000,
          updated_at: Date.now() * 1000,
        })
        .onConflict((oc) =>
          oc.column('throttle_key').doUpdateSet({ failures: 15, blocked_until: Date.now() * 1000 + 900_000_000 }),
        )
        .execute();
      const answered = page.waitForResponse(
        (res) => res.url().endsWith('/auth/session') && res.request().method() === 'POST',
      );
      await signInThroughForm(page, { email, password: 'a long enough password' });
      const body = await (await answered).json();
      expect(body.error_code).toBe('SIGN_IN_LOCKED');
      const alert = page.getByRole('alert').filter({ hasText: `Request id: ${body.request_id}` });
      expect(await textOf(alert)).toBe(
        `Too many failed sign-in attempts. Signing in is blocked for ${Math.ceil(body.details.retry_after_seconds / 60)} minutes; try again later.\n` +
          `Request id: ${body.request_id}`,
      );
      await eventually(() => page.url()).toBe(`${base()}/sign-in`);
    });
  },
  { only: 'sqlite' },
);
