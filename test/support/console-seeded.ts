import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll } from 'vitest';
import type { SvcClient } from '../../client/src/index.js';
import { seed } from '../../src/cli/seed.js';
import { vendorsService } from '../../src/modules/integrations/vendors.service.js';
import { API_SCOPES, eventually, newContext, signInThroughForm, type ConsoleServer } from './browser.js';
import { newUser } from './console.js';
import { newAccountId } from './context.js';

/** What seededConsole's beforeAll opened: the admin's page, the integration's client and the ids of its screens. */
export interface SeededConsole {
  context: BrowserContext;
  page: Page;
  api: SvcClient;
  admin: { email: string; password: string; user_id: string; account_id: string };
  /** A record in review, a field, a coding rule, a webhook. */
  ids: { record: string; field: string; rule: string; webhook: string };
}

/**
 * Inside a suite of eachDialectWith(startConsoleServer(…, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })), before its
 * tests: svc seed's company (so that tables, charts and forms hold data), an integration and a webhook, and an
 * account admin (who sees every screen) signed in on a page of a new browser context. `beforeSignIn` sees the
 * signed-out page first (on the sign-in screen). The caller closes the context (screenshotFailuresThenClose).
 */
export function seededConsole(
  server: () => ConsoleServer,
  browser: () => Browser,
  beforeSignIn: (page: Page) => Promise<void> = async () => {},
): () => SeededConsole | undefined {
  let opened: SeededConsole | undefined;
  beforeAll(async () => {
    const accountId = newAccountId();
    await seed(server().db, ['--account', accountId, '--records', '120', '--values', '40'], () => {});
    const api = await server().apiClient(accountId, [
      ...API_SCOPES,
      'accounting.integration.write',
      'webhooks.read',
      'webhooks.write',
    ]);
    const [review] = (await api.review.search({ review_status: 'REVIEW', limit: 1 })).items;
    await vendorsService.create(server().db, { vendor: 'acme-ledger', name: 'Acme Ledger' });
    await api.integrations.create({ vendor: 'acme-ledger', vendor_account_id: 'acme-1' });
    const hook = await api.webhooks.create({
      url: 'http://127.0.0.1:9/hook',
      description: 'Ledger sync',
      event_types: ['accounting_record.ready_for_export'],
    });
    const ids = {
      record: review!.id,
      field: (await api.fields.list()).items[0]!.svc_id,
      rule: (await api.codingRules.list()).items[0]!.id,
      webhook: hook.id,
    };
    const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
    const context = await newContext(browser());
    const page = await context.newPage();
    opened = { context, page, api, admin, ids };
    await page.goto(`${server().url}/console/sign-in`);
    // The page as the user sees it: after the console has drawn it.
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await beforeSignIn(page);
    await signInThroughForm(page, admin);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });
  return () => opened;
}

/** What a region still loading says (the console's Loading: "Loading the record…", "Looking for your draft…"). */
const LOADING = /^(Loading|Looking for|Checking)\b.*…$/;

/** Opens a page of the console and waits for its heading and for every region of it to have loaded (in a test). */
export async function openScreen(page: Page, url: string, heading: string | RegExp): Promise<void> {
  await page.goto(url);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await eventually(() => page.getByRole('status').filter({ hasText: LOADING }).count()).toBe(0);
}
