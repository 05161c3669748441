import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { DESKTOP, PHONE, screenshotFailuresThenClose, sharedBrowser, startConsoleServer } from '../support/browser.js';
import { expectEveryControlReachedByTab, walkWithTab } from '../support/console-a11y.js';
import { openScreen, seededConsole } from '../support/console-seeded.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/**
 * Issue 31: "every action reachable by keyboard alone". On each screen of review and coding (the routes of
 * console/src/app/AppRoutes.tsx), on svc seed's company, as an account admin: Tab from the top of the page goes
 * round every control the page shows, and each stop shows its focus. The admin screens are in
 * keyboard-walk-admin; the dialogs in keyboard-dialogs.
 */
eachDialectWith(
  'every control of the review screens reached by Tab',
  (dialect) => startConsoleServer(dialect, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
  (server) => {
    const seeded = seededConsole(server, browser);
    const ids = () => seeded()!.ids;
    const page = (): Page => seeded()!.page;
    const walk = async (path: string, heading: string | RegExp) => {
      await openScreen(page(), `${server().url}/console${path}`, heading);
      await expectEveryControlReachedByTab(page(), path);
    };
    screenshotFailuresThenClose('keyboard-walk-review', seeded);

    it('goes round the overview, the queue and a record', async () => {
      await walk('/', 'Overview');
      // The walk sees what it should: a button out of the Tab order is missed, one without a focus ring is seen.
      await page().evaluate(() => {
        const main = document.querySelector('main')!;
        main.append(Object.assign(document.createElement('button'), { textContent: 'Mouse only', tabIndex: -1 }));
        const bare = Object.assign(document.createElement('button'), { textContent: 'No ring' });
        bare.style.outline = 'none';
        main.append(bare);
      });
      const seen = await walkWithTab(page());
      expect(seen.missed).toEqual([expect.stringMatching(/^button “Mouse only”/)]);
      expect(seen.stops.filter((s) => !s.shown).map((s) => s.what)).toEqual(['button “No ring”']);
      await walk('/queue', 'Review queue');
      await walk(`/records/${ids().record}`, /.+/);
    });

    it('goes round the queue and a record on a phone, where a reviewer reads, approves or sends back', async () => {
      await page().setViewportSize(PHONE);
      try {
        await walk('/queue?review_status=REVIEW', 'Review queue');
        await walk(`/records/${ids().record}`, /.+/);
      } finally {
        await page().setViewportSize(DESKTOP);
      }
    });

    it('goes round the coding grid and the export', async () => {
      await walk('/coding-grid', 'Coding grid');
      await walk('/exports', 'Export');
    });

    it('goes round the fields, a field and its values, the coding rules and a rule', async () => {
      await walk('/fields', 'Fields');
      await walk(`/fields/${ids().field}`, /.+/);
      await walk('/coding-rules', 'Coding rules');
      await walk(`/coding-rules/${ids().rule}`, /.+/);
      await walk('/coding-rules/new', 'New coding rule');
    });
  },
  { only: 'sqlite' },
);
