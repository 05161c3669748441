import type { Browser, BrowserContext, Page } from 'playwright-core';
import { beforeAll } from 'vitest';
import type {
  AccountingRecord,
  FieldValue,
  RecordCreate,
  RecordSearchQuery,
  SvcClient,
} from '../../client/src/index.js';
import type { DialectName } from '../../src/db/database.js';
import { newContext, screenshotFailuresThenClose, signInThroughForm, type ConsoleServer } from './browser.js';
import { newUser } from './console.js';
import { newAccountId } from './context.js';

export { eventually } from './browser.js';

const person = (first: string, email: string) => ({
  id: `u_${first.toLowerCase()}`,
  email,
  first_name: first,
  last_name: 'Example',
  role: 'EMPLOYEE' as const,
  status: 'ACTIVE' as const,
});

/** The record ids the queue's table shows, in order (each row's checkbox or link names its record). */
export async function shownRecordIds(page: Page): Promise<string[]> {
  const table = page.getByRole('region', { name: 'Records' }).getByRole('table');
  const links = table.getByRole('row').getByRole('link');
  const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  return hrefs.map((href) => decodeURIComponent(href.replace('/console/records/', '')));
}

/** Every page of a search through the SDK, as the queue would walk it. */
export async function searchIds(api: SvcClient, query: RecordSearchQuery): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await api.review.search({ ...query, ...(cursor ? { cursor } : {}) });
    pages.push(page.items.map((r) => r.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return pages;
}

/** What the story's beforeAll opened: its account, its integration's SDK client, a bookkeeper and their page. */
export interface StoryOpened {
  accountId: string;
  api: SvcClient;
  bookkeeper: { email: string; password: string; user_id: string };
  /** The GL Account field's svc_id. */
  glAccount: string;
  /** The bookkeeper's page (desktop viewport). */
  page: Page;
}

export interface ConsoleStory {
  /** The values of GL Account and Department, by name. */
  readonly values: Record<string, FieldValue>;
  /** The records of the flows, by role in the story. */
  readonly r: Record<string, AccountingRecord>;
  /** The console's base URL. */
  base(): string;
  opened(): StoryOpened;
}

/**
 * Inside a suite of eachDialectWith(startConsoleServer), before its tests: an account with two coding fields (GL
 * Account required before approval, Department), nineteen records (card expenses of Acme, Blue Bottle, Cloudy
 * Software and Zeta Supplies, one reimbursement of two lines), a bookkeeper, and a page for the bookkeeper,
 * signed in when `signedIn` (else at the start of no flow). A failed test leaves a screenshot (failed-…); the
 * browser context is closed after the suite.
 */
export function consoleStory(
  server: () => ConsoleServer,
  dialect: DialectName,
  browser: () => Browser,
  options: { signedIn: boolean },
): ConsoleStory {
  let opened: (StoryOpened & { context: BrowserContext }) | undefined;
  const current = () => {
    if (!opened) throw new Error('consoleStory: not opened yet (use it inside a test or hook)');
    return opened;
  };
  const values: Record<string, FieldValue> = {};
  const r: Record<string, AccountingRecord> = {};
  const base = () => `${server().url}/console`;

  beforeAll(async () => {
    const accountId = newAccountId();
    const api = await server().apiClient(accountId);
    const gl = await api.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
    const department = await api.fields.create({ name: 'Department', group: 'ACCOUNTING' });
    const glValues = await api.fieldValues.create(gl.svc_id, [
      { value: 'Travel', remote_id: '6100' },
      { value: 'Meals', remote_id: '6200' },
      { value: 'Software', remote_id: '6300' },
      { value: 'Trade shows', remote_id: '6500' },
    ]);
    const deptValues = await api.fieldValues.create(department.svc_id, [
      { value: 'Sales', remote_id: 'D10' },
      { value: 'Engineering', remote_id: 'D20' },
    ]);
    for (const v of [...glValues.items, ...deptValues.items]) values[v.value] = v;

    const card = (name: string, amount: number, extra: Partial<RecordCreate> = {}): RecordCreate => ({
      type: 'CARD_EXPENSE_POST',
      amount: { amount, currency: 'USD' },
      posted_at: '2026-06-11T09:00:00Z',
      review_status: 'REVIEW',
      vendor: { id: `v_${name.replaceAll(' ', '_')}`, name },
      user: person('Alice', 'alice@example.com'),
      receipts: [{ id: `rc_${amount}` }],
      ...extra,
    });
    const coded = (value: string, amount: number) => [
      { amount: { amount, currency: 'USD' }, field_values: [{ field_id: gl.svc_id, svc_id: values[value]!.svc_id }] },
    ];
    const created = await api.review.createRecords([
      card('Acme Travel', 171.75, { posted_at: '2026-06-10T08:00:00Z' }),
      card('Acme Travel', 89.1, { posted_at: '2026-06-12T08:00:00Z', lines: coded('Meals', 89.1) }),
      card('Acme Travel', 640, { posted_at: '2026-06-13T08:00:00Z' }),
      card('Acme Office', 42, { review_status: 'PREPARE' }),
      card('Blue Bottle', 12.5),
      card('Cloudy Software', 300, { user: person('Bob', 'bob@example.com'), lines: coded('Software', 300) }),
      {
        type: 'REIMBURSEMENT_EXPENSE_POST',
        amount: { amount: 55, currency: 'EUR' },
        original_amount: { amount: 60, currency: 'USD' },
        posted_at: '2026-06-14T08:00:00Z',
        review_status: 'REVIEW',
        user: person('Carol', 'carol@example.com'),
        lines: [
          { amount: { amount: 30, currency: 'EUR' }, memo: 'Taxi' },
          { amount: { amount: 25, currency: 'EUR' }, memo: 'Lunch' },
        ],
      },
      ...Array.from({ length: 12 }, (_, i) =>
        card('Zeta Supplies', 10 + i, { posted_at: `2026-05-${String(i + 10).padStart(2, '0')}T08:00:00Z` }),
      ),
    ]);
    const [a, b, c, d, e, f, g] = created.items;
    Object.assign(r, { uncoded: a!, coded: b!, stays: c!, prepare: d!, bottle: e!, cloudy: f!, twoLines: g! });
    await api.review.setRequiredCoding([gl.svc_id]);

    const bookkeeper = await newUser(server().db, 'BOOKKEEPER', accountId);
    const context = await newContext(browser());
    const page = await context.newPage();
    if (options.signedIn) {
      await page.goto(`${base()}/sign-in`);
      await signInThroughForm(page, bookkeeper);
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    }
    opened = { context, accountId, api, bookkeeper, glAccount: gl.svc_id, page };
  });

  screenshotFailuresThenClose(`failed-${dialect}`, () => opened);

  return { values, r, base, opened: current };
}
