import type { Page } from 'playwright-core';
import { it } from 'vitest';
import { screenshotFailuresThenClose, sharedBrowser, startConsoleServer } from '../support/browser.js';
import { expectEveryControlReachedByTab } from '../support/console-a11y.js';
import { openScreen, seededConsole } from '../support/console-seeded.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/**
 * Issue 31: "every action reachable by keyboard alone", on the settings and admin screens and those before
 * sign-in: Tab from the top of the page goes round every control the page shows, and each stop shows its focus.
 */
eachDialectWith(
  'every control of the admin screens reached by Tab',
  (dialect) => startConsoleServer(dialect, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
  (server) => {
    const seeded = seededConsole(server, browser, async (signedOut) => {
      // Before any test (no polling here): the heading is the wait, the signed-out screens load nothing more.
      const open = async (path: string, heading: string) => {
        await signedOut.goto(`${server().url}/console${path}`);
        await signedOut.getByRole('heading', { level: 1, name: heading }).waitFor();
      };
      await expectEveryControlReachedByTab(signedOut, '/sign-in');
      await open('/set-password', 'Set your password');
      await expectEveryControlReachedByTab(signedOut, '/set-password');
      await open('/sign-in', 'Sign in');
    });
    const page = (): Page => seeded()!.page;
    const walk = async (path: string, heading: string | RegExp) => {
      await openScreen(page(), `${server().url}/console${path}`, heading);
      await expectEveryControlReachedByTab(page(), path);
    };
    screenshotFailuresThenClose('keyboard-walk-admin', seeded);

    it('goes round the settings, API clients, users and two-step sign-in', async () => {
      await walk('/settings', 'Settings');
      await walk('/api-clients', 'API clients');
      await walk('/users', 'Users');
      await walk('/two-step', 'Two-step sign-in');
    });

    it('goes round the webhooks, a webhook, the integrations, connected apps, the audit log and the rest', async () => {
      await walk('/webhooks', 'Webhooks');
      await walk(`/webhooks/${seeded()!.ids.webhook}`, 'Ledger sync');
      await walk('/integrations', 'Integrations');
      await walk('/connected-apps', 'Connected apps');
      await walk('/audit', 'Audit log');
      await walk('/oauth/authorize', 'Connect an app');
      await walk('/no-such-page', /.+/);
    });
  },
  { only: 'sqlite' },
);
