import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Locator,
  type Page,
} from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { SvcClient } from '../../client/src/index.js';
import { loadConfig } from '../../src/config.js';
import type { Db, DialectName } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { ROOT, startServer, type RunningServer } from './processes.js';
import { CEILING_MS } from './wait.js';

/** Debian's Chromium (`apt-get install chromium`); never a downloaded browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');

/** Headless Chromium as CI runs it. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Everything an API client of these tests may do: create fields, values and records, report exports. */
export const API_SCOPES: readonly Scope[] = [
  'fields.read',
  'fields.write',
  'field_values.read',
  'field_values.write',
  'accounting.record.read',
  'accounting.record.write',
  'accounting.record.review',
  'accounting.record.admin',
];

/**
 * The built server (`node dist/server.js`, serving console/dist at /console) on a fresh database, and the same
 * database opened in the test process to create console users, as `svc users create` does.
 */
export interface ConsoleServer {
  url: string;
  dialect: DialectName;
  db: Db;
  /** An SDK client of a new API client of the account (an integration, seen from outside). */
  apiClient(accountId: string, scopes?: readonly Scope[]): Promise<SvcClient>;
  close(): Promise<void>;
}

/** `env`: more settings for the server (e.g. WEBHOOK_ALLOW_PRIVATE_TARGETS for a receiver on 127.0.0.1). */
export async function startConsoleServer(
  dialect: DialectName,
  env: Record<string, string> = {},
): Promise<ConsoleServer> {
  const database: TestDatabase = await createTestDatabase(dialect, { migrated: true });
  let server: RunningServer | null = null;
  let db: Db | null = null;
  const close = async () => {
    server?.child.kill('SIGTERM');
    if (server) await server.exited;
    await db?.close().catch(() => {});
    await database.drop();
  };
  try {
    // A copy of the migrated template; the server migrates at start (nothing left to do), the test process opens the
    // database only after that.
    server = await startServer({ DATABASE_URL: database.url, RATE_LIMIT_MAX: '0', TOKEN_RATE_LIMIT_MAX: '0', ...env });
    db = openDatabase(loadConfig({ DATABASE_URL: database.url }).database, { poolSize: 2 });
    const opened = db;
    const url = server.url;
    return {
      url,
      dialect,
      db: opened,
      async apiClient(accountId, scopes = API_SCOPES) {
        const creds = await authService.createClient(opened, accountId, [...scopes]);
        return new SvcClient({ baseUrl: url, clientId: creds.client_id, clientSecret: creds.client_secret });
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

let axeSource: string | null = null;

/**
 * axe-core's violations on the page as it is, each with its rule, impact and first nodes. The page's CSP forbids
 * inline scripts, so axe is evaluated through the DevTools protocol (page.evaluate of its source), which CSP does
 * not govern; the page itself is left as the console serves it.
 */
async function axeViolations(
  page: Page,
): Promise<{ id: string; impact: string | null; help: string; nodes: string[] }[]> {
  axeSource ??= fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as any).axe;
    const results = await axe.run(document, { resultTypes: ['violations'] });
    return results.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 5),
    }));
  });
}

/** axe-core on the page as it is: no violation of any impact (minor and moderate included). */
export async function expectNoAxeViolations(page: Page, screen: string): Promise<void> {
  expect(await axeViolations(page), `axe (every impact) on ${screen}`).toEqual([]);
}

/** axe-core on the page as it is: no violation of impact serious or critical, nor a landmark-unique one. */
export async function expectNoSeriousAxeViolations(page: Page, screen: string): Promise<void> {
  const violations = await axeViolations(page);
  // Serious and critical findings, and one moderate rule kept at zero since it was fixed (landmark-unique: two
  // landmarks of one kind with one name leave a screen reader's list of regions ambiguous).
  const serious = violations.filter(
    (v: { id: string; impact: string | null }) =>
      v.impact === 'serious' || v.impact === 'critical' || v.id === 'landmark-unique',
  );
  expect(serious, `axe on ${screen}`).toEqual([]);
}

/** The page never scrolls sideways: wide tables scroll inside their own region. */
export async function expectNoHorizontalOverflow(page: Page, screen: string): Promise<void> {
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(widths.scroll, `${screen}: page width ${widths.scroll} > viewport ${widths.client}`).toBeLessThanOrEqual(
    widths.client,
  );
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * A screen's picture for people to look at (test-artifacts/console/), written when SCREENSHOTS=1 (`SCREENSHOTS=1 npx
 * vitest run --project console`): a full-page PNG took a fifth of a browser file's time, and nobody reads a passing
 * run's. The screenshot of a test that failed is always written (`screenshot`, screenshotFailuresThenClose).
 */
export async function screenshotOfScreen(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS === '1') await screenshot(page, name);
}

/**
 * One screen as the suite checks every screen: axe at 1280 px and at 390 px, no sideways page scroll at either,
 * and, with SCREENSHOTS=1, a screenshot of each (test-artifacts/console/<screen>-<dialect>.png, and
 * …-phone-<dialect>.png).
 */
export async function checkScreen(page: Page, screen: string, dialect: DialectName): Promise<void> {
  await expectNoSeriousAxeViolations(page, `${screen} at ${DESKTOP.width} px`);
  await expectNoHorizontalOverflow(page, `${screen} at ${DESKTOP.width} px`);
  await screenshotOfScreen(page, `${screen}-${dialect}`);
  await page.setViewportSize(PHONE);
  try {
    await expectNoHorizontalOverflow(page, `${screen} at ${PHONE.width} px`);
    await expectNoSeriousAxeViolations(page, `${screen} at ${PHONE.width} px`);
    await screenshotOfScreen(page, `${screen}-phone-${dialect}`);
  } finally {
    await page.setViewportSize(DESKTOP);
  }
}

/**
 * A browser context whose waits (Playwright's waitFor, click, fill …) end at the suite's ceiling: a wait is for an
 * element or an answer, and only a hang should fail it.
 */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: DESKTOP, ...options });
  context.setDefaultTimeout(CEILING_MS);
  return context;
}

/** expect.poll with the suite's ceiling: what the page shows once it has caught up. */
export const eventually = <T>(value: () => T | Promise<T>) => expect.poll(value, { timeout: CEILING_MS });

/** The body rows of the table named `name`, as their cells' texts. */
export const tableCells = (page: Page, name: string) =>
  page
    .getByRole('table', { name })
    .getByRole('row')
    .evaluateAll((trs) =>
      trs.flatMap((tr) => {
        const cells = [...tr.querySelectorAll('td')].map((td) => (td as HTMLElement).innerText.trim());
        return cells.length > 0 ? [cells] : [];
      }),
    );

/** A new page of `context`, signed in through the form at `base`, on the Overview. */
export async function signIn(context: BrowserContext, base: string, user: { email: string; password: string }) {
  const page = await context.newPage();
  await page.goto(`${base}/sign-in`);
  await signInThroughForm(page, user);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return page;
}

/** Signs in through the console's form; lands where the console sends a signed-in user. */
export async function signInThroughForm(page: Page, user: { email: string; password: string }): Promise<void> {
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The worker's Chromium, once launched; a disconnected one (crashed, or closed) is launched again. */
let workerBrowser: Promise<Browser> | undefined;

function browserOfWorker(): Promise<Browser> {
  workerBrowser ??= launchBrowser().then((browser) => {
    browser.on('disconnected', () => {
      workerBrowser = undefined;
    });
    return browser;
  });
  return workerBrowser;
}

/**
 * One headless Chromium per vitest worker, shared by the browser files it runs one after another (the config's
 * `isolate: false` keeps this module's state from file to file): a launch and its first pages cost about a second of
 * CPU, 45 times a run. A file sees a browser with no context of an earlier file: each of its tests opens contexts of
 * its own (a fresh profile: cookies, storage and cache start empty), and any still open when the file ends are
 * closed then. Playwright ends the browser when the worker exits (its exit handler); the run's teardown names any
 * process left over (global-setup.ts). Call at the file's top; the function answers the browser once it is up.
 */
export function sharedBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await browserOfWorker();
  });
  afterAll(async () => {
    if (browser?.isConnected()) await Promise.all(browser.contexts().map((context) => context.close()));
  });
  return () => {
    if (!browser) throw new Error('sharedBrowser(): the browser is not launched yet (use it inside a test or hook)');
    return browser;
  };
}

/** What a reader sees of an element: its rendered text, one line per block (no blank lines between paragraphs). */
export const textOf = async (locator: Locator): Promise<string> =>
  (await locator.innerText()).replace(/\n+/g, '\n').trim();

/**
 * For a suite that opens a browser context of its own: after a failed test, a screenshot of `current()`'s page
 * (test-artifacts/console/<name>-<test>.png: where it stopped); after the suite, the context closed.
 */
export function screenshotFailuresThenClose(
  name: string,
  current: () => { context: BrowserContext; page: Page } | undefined,
): void {
  afterEach(async (test) => {
    const page = current()?.page;
    if (test.task.result?.state === 'fail' && page && !page.isClosed()) {
      await screenshot(page, `${name}-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`);
    }
  });
  afterAll(async () => {
    await current()?.context.close();
  });
}

/**
 * Holds the answers of the type-ahead's value search until `release()` (a key pressed before the answer came);
 * `stop()`, in a `finally`, lets every held answer go and the search answer freely again.
 */
export async function holdValueSearch(page: Page): Promise<{ release(): void; stop(): Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const isSearch = (url: URL) => url.pathname.endsWith('/values/search');
  await page.route(isSearch, async (route) => {
    await held;
    await route.fallback();
  });
  return {
    release,
    async stop() {
      release();
      await page.unroute(isSearch);
    },
  };
}
