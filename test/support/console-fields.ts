import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll } from 'vitest';
import type { FieldValue, SvcClient } from '../../client/src/index.js';
import type { DialectName } from '../../src/db/database.js';
import {
  API_SCOPES,
  newContext,
  screenshotFailuresThenClose,
  signInThroughForm,
  type ConsoleServer,
} from './browser.js';
import { newUser } from './console.js';
import { newAccountId } from './context.js';

export { eventually } from './browser.js';

/** Every value of a field, through the SDK. */
export async function allValues(api: SvcClient, fieldId: string): Promise<FieldValue[]> {
  const values: FieldValue[] = [];
  for await (const value of api.fieldValues.listAll(fieldId, { limit: 1000 })) values.push(value);
  return values;
}

/** The value texts the values table shows, in order (its rows of values: five cells or more). */
export const shownValues = (page: Page, fieldName: string) =>
  page
    .getByRole('table', { name: `Values of ${fieldName}` })
    .getByRole('row')
    .evaluateAll((trs) =>
      trs.flatMap((tr) => {
        const cells = tr.querySelectorAll('td');
        return cells.length >= 5 ? [(cells[0] as HTMLElement).innerText] : [];
      }),
    );

/** A new page of `context`, signed in through the form as `user`, on the overview. */
export async function signedInPage(context: BrowserContext, base: string, user: { email: string; password: string }) {
  const page = await context.newPage();
  await page.goto(`${base}/sign-in`);
  await signInThroughForm(page, user);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return page;
}

/** An account whose admin has the console open, and the SDK client of the account's integration. */
export interface FieldsConsole {
  /** The console's base URL. */
  base(): string;
  /** A link of the main navigation of the admin's page. */
  nav(name: string): ReturnType<Page['getByRole']>;
  /** What the suite's beforeAll opened: the account, its integration's client and the admin's signed-in page. */
  opened(): { accountId: string; api: SvcClient; page: Page };
}

/**
 * Inside a suite of eachDialectWith(startConsoleServer): a new account with its integration's API client, and
 * its admin signed in to the console (desktop viewport; the clipboard may be read and written), before the
 * suite's tests; a failed test leaves a screenshot (failed-fields-…); the admin's browser context is closed after
 * the suite.
 */
export function fieldsConsole(
  server: () => ConsoleServer,
  dialect: DialectName,
  browser: () => Browser,
): FieldsConsole {
  let opened: { context: BrowserContext; accountId: string; api: SvcClient; page: Page } | undefined;
  const current = () => {
    if (!opened) throw new Error('fieldsConsole: not opened yet (use it inside a test or hook)');
    return opened;
  };
  const base = () => `${server().url}/console`;

  beforeAll(async () => {
    const accountId = newAccountId();
    const api = await server().apiClient(accountId, [...API_SCOPES]);
    const admin = await newUser(server().db, 'ACCOUNT_ADMIN', accountId);
    const context = await newContext(browser());
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server().url });
    opened = { context, accountId, api, page: await signedInPage(context, base(), admin) };
  });
  screenshotFailuresThenClose(`failed-fields-${dialect}`, () => opened);

  return {
    base,
    nav: (name) => current().page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }),
    opened: current,
  };
}
