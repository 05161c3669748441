import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  SvcClient,
  SvcOAuthError,
  authorizationRequest,
  exchangeCode,
  readRedirect,
  type TokenSet,
} from '../../client/src/index.js';
import { appsService } from '../../src/modules/auth/apps.service.js';
import { vendorsService } from '../../src/modules/integrations/vendors.service.js';
import { checkScreen, newContext, sharedBrowser, signInThroughForm, startConsoleServer } from '../support/browser.js';
import { newUser } from '../support/console.js';
import { newAccountId } from '../support/context.js';
import { eachDialectWith } from '../support/dialects.js';

const browser = sharedBrowser();

/** The partner's own web server: its OAuth callback, which records where the browser was sent. */
async function partnerSite(): Promise<{ callback: string; arrived: Promise<string>; close: () => Promise<void> }> {
  let arrive!: (url: string) => void;
  const arrived = new Promise<string>((resolve) => (arrive = resolve));
  const server = http.createServer((request, response) => {
    const { port } = server.address() as AddressInfo;
    arrive(`http://127.0.0.1:${port}${request.url}`);
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Acme ERP</title><h1>Connected to svc</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    callback: `http://127.0.0.1:${port}/oauth/callback`,
    arrived,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

eachDialectWith(
  'a partner app connected in the console, then working through the SDK',
  (dialect) => startConsoleServer(dialect),
  (server, dialect) => {
    let context: BrowserContext;
    let page: Page;

    beforeAll(async () => {
      context = await newContext(browser());
      page = await context.newPage();
    });

    afterAll(async () => {
      await context?.close();
    });

    it('the operator registers vendor and app; an admin connects it; the partner creates the integration, polls and reports; the admin revokes it', async () => {
      const { db, url } = server();
      const site = await partnerSite();
      try {
        // The operator, as `svc vendors create` and `svc apps create` do.
        const vendor = `ERP_${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
        await vendorsService.create(db, { vendor, name: 'Acme ERP' });
        const app = await appsService.create(db, { name: 'Acme ERP connector', redirectUris: [site.callback] });
        const accountId = newAccountId();
        const admin = await newUser(db, 'ACCOUNT_ADMIN', accountId);
        const records = await server().apiClient(accountId);
        const created = await records.review.createRecords([
          {
            type: 'CARD_PAYMENT',
            review_status: 'READY_FOR_EXPORT',
            amount: { amount: 42.5, currency: 'USD' },
            posted_at: '2026-11-20T09:00:00Z',
          },
        ]);
        const ready = created.items[0];

        // The partner sends the admin's browser to svc; the admin signs in, reads the consent and allows.
        const scope = 'accounting.integration.write accounting.record.read accounting.record.write';
        const request = await authorizationRequest({
          baseUrl: url,
          clientId: app.app_id,
          redirectUri: site.callback,
          scope,
        });
        await page.goto(request.url);
        await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
        await signInThroughForm(page, admin);
        const consent = page.getByRole('heading', { level: 2, name: /^Connect Acme ERP connector to account/ });
        await consent.waitFor();
        expect(await consent.innerText()).toBe(`Connect Acme ERP connector to account ${accountId}?`);
        const scopes = await page.locator('.consent-scopes li').allInnerTexts();
        expect(scopes).toEqual([
          'View and manage accounting integration accounting.integration.write',
          'View accounting records accounting.record.read',
          'View accounting records and report export results accounting.record.write',
        ]);
        await checkScreen(page, 'consent', dialect);
        await page.getByRole('button', { name: 'Allow Acme ERP connector' }).click();
        const callback = await site.arrived;
        await page.getByRole('heading', { name: 'Connected to svc' }).waitFor();

        // The partner's backend: the code for tokens, then the work, with refreshes kept.
        const issuer = ((await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json()) as any).issuer;
        const code = readRedirect(callback, request.state, issuer);
        const tokens = await exchangeCode({
          baseUrl: url,
          clientId: app.app_id,
          clientSecret: app.client_secret,
          code,
          redirectUri: site.callback,
          codeVerifier: request.codeVerifier,
        });
        const kept: TokenSet[] = [tokens];
        const partner = new SvcClient({
          baseUrl: url,
          clientId: app.app_id,
          clientSecret: app.client_secret,
          refreshToken: tokens.refresh_token,
          onTokens: (next) => void kept.push(next),
        });
        const integration = await partner.integrations.create({ vendor, vendor_account_id: 'acme-in-erp' });
        expect(integration).toMatchObject({ vendor, vendor_account_id: 'acme-in-erp', status: 'ACTIVE' });
        const polled = await partner.accountingRecords.query({ review_status: 'READY_FOR_EXPORT' });
        expect(polled.items.map((r) => r.id)).toEqual([ready!.id]);
        const reported = await partner.accountingRecords.reportExportResults([
          { accounting_record_id: ready!.id, success: { reference_id: 'JE-1001' } },
        ]);
        expect(reported).toEqual({ updated_accounting_record_ids: [ready!.id] });
        expect((await records.accountingRecords.get(ready!.id)).review_status).toBe('EXPORTED');

        // The admin sees the integration the partner made, disconnects it and reactivates it.
        await page.goto(`${url}/console/integrations`);
        const integrationRow = page.getByRole('row', { name: new RegExp(vendor) });
        await integrationRow.waitFor();
        // The vendor by the name the operator gave it, its id beside.
        expect((await integrationRow.innerText()).replace(/\s+/g, ' ')).toContain(
          `Acme ERP (${vendor}) acme-in-erp Active`,
        );
        await checkScreen(page, 'integrations', dialect);
        await page.getByRole('button', { name: 'Disconnect Acme ERP' }).click();
        await page.getByRole('button', { name: 'Yes, disconnect Acme ERP' }).click();
        await page.getByRole('button', { name: 'Reactivate Acme ERP' }).waitFor();
        expect((await partner.integrations.list()).items.map((i) => i.status)).toEqual(['DISABLED']);
        await page.getByRole('button', { name: 'Reactivate Acme ERP' }).click();
        await page.getByRole('button', { name: 'Disconnect Acme ERP' }).waitFor();
        expect((await partner.integrations.list()).items.map((i) => i.status)).toEqual(['ACTIVE']);

        // The admin sees the app under Connected apps, and revokes it: the partner's next request fails.
        await page.goto(`${url}/console/connected-apps`);
        const row = page.getByRole('row', { name: /Acme ERP connector/ });
        await row.waitFor();
        expect(await row.innerText()).toContain('accounting.record.write');
        await checkScreen(page, 'connected-apps', dialect);
        await page.getByRole('button', { name: 'Revoke Acme ERP connector' }).click();
        await page.getByRole('button', { name: 'Yes, revoke Acme ERP connector' }).click();
        await page.getByText('Acme ERP connector is revoked: its access has stopped.').waitFor();
        await page.getByText('No app is connected to the account.').waitFor();
        const refused = await partner.accountingRecords.query({}).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(SvcOAuthError);
        expect(refused).toMatchObject({ error: 'invalid_grant' });
      } finally {
        await site.close();
      }
    });
  },
  { only: 'sqlite' },
);
