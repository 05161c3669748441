import { ADMIN } from './accounting.js';
import type { Api } from './api.js';
import type { TestContext } from './context.js';
import { disconnectUrl, INTEGRATION, newVendor } from './integrations.js';
import { approve, authorizeParams, newApp, pkce, signedIn } from './oauth.js';
import { routeScopes, type RouteScopes } from './routes.js';
import { newJpeg, receiptsUrl } from './receipts.js';

/** Every authenticated operation of the app's OpenAPI document: a new route joins every loop by itself. */
export async function routeTable(ctx: TestContext): Promise<RouteScopes[]> {
  const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  return routeScopes(doc);
}

export const routeName = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** Objects of one account, made through the API, that other tests aim at. */
export interface Estate {
  api: Api;
  /** A second API client of the account, for the operations on clients (revoking the first would end the test). */
  spareClientId: string;
  fieldId: string;
  value: { svc_id: string; remote_id: string; value_id: string };
  /** A second value of the field, which no request changes: what the estate's coding rules set. */
  spareValueId: string;
  /** The first of the account's two coding rules (they match no record). */
  ruleId: string;
  recordId: string;
  /** A receipt of the first record, and a JPEG to upload. */
  receiptId: string;
  receiptJpeg: Buffer;
  /** Records under review, one for each editing operation (each changes its record's version; accepting suggestions
   * changes nothing where there is no history to suggest from, and its version stays 1). */
  editable: {
    coding: EditableRecord;
    split: EditableRecord;
    merge: EditableRecord;
    accept: EditableRecord;
    bulkCoding: EditableRecord;
  };
  cursors: {
    fields: string;
    values: string;
    records: string;
    search: string;
    integrations: string;
    webhooks: string;
    events: string;
    codingRules: string;
  };
  /** The ACTIVE one of the account's two integrations (the other DISABLED), with its vendor and vendor account. */
  integration: { id: string; vendor: string; vendorAccountId: string };
  /** The first of the account's two webhook endpoints, and an event of a type it takes. */
  webhook: { id: string; eventId: string };
  /** A partner app an admin of the account connected. */
  connectedAppId: string;
}

interface EditableRecord {
  id: string;
  lineIds: string[];
}

export async function newEstate(ctx: TestContext): Promise<Estate> {
  const api = await ctx.as([
    ...ADMIN,
    'account.admin',
    'accounting.integration.write',
    'webhooks.write',
    'events.read',
    'audit.read',
  ]);
  const spare = await ctx.newClient(['fields.read'], api.accountId);
  const fieldId = await api.newField({ name: 'One' });
  await api.newField({ name: 'Two' });
  const [value, spareValue] = await api.newValues(fieldId, [
    { value: 'Sales', remote_id: 'r-1', value_id: 'q-1' },
    { value: 'Ops', remote_id: 'r-2', value_id: 'q-2' },
  ]);
  const records = await api.newRecords(
    [0, 1].map(() => ({
      amount: { amount: 10, currency: 'USD' },
      review_status: 'READY_FOR_EXPORT',
      lines: [{ amount: { amount: 10, currency: 'USD' }, field_values: [{ field_id: fieldId, svc_id: value.svc_id }] }],
    })),
  );
  const underReview = await api.post('/internal/v1/accounting/records', {
    items: [0, 1, 2, 3, 4].map(() => ({
      type: 'CARD_EXPENSE_POST',
      amount: { amount: 10, currency: 'USD' },
      posted_at: '2026-06-11T09:09:05.840865Z',
      review_status: 'REVIEW',
      lines: [{ amount: { amount: 4, currency: 'USD' } }, { amount: { amount: 6, currency: 'USD' } }],
    })),
  });
  if (underReview.status !== 200) throw new Error(`estate records under review: ${underReview.text}`);
  const [coding, split, merge, accept, bulkCoding] = underReview.body.items.map((r: any) => ({
    id: r.id,
    lineIds: r.line_items.slice(0, 2).map((l: any) => l.id),
  }));
  // Two integrations (the first disconnected), so that their list has a second page.
  const vendor = await newVendor(ctx.db);
  const integrationIds: string[] = [];
  for (const vendorAccountId of ['past', 'current']) {
    const made = await api.post(INTEGRATION, { vendor, vendor_account_id: vendorAccountId });
    if (made.status !== 200) throw new Error(`estate integration: ${made.text}`);
    integrationIds.push(made.body.integration_id);
    if (vendorAccountId === 'past') await api.post(disconnectUrl(made.body.integration_id), undefined);
  }
  // Two webhook endpoints (so that their list has a second page), with https targets no test sends to.
  const webhookIds: string[] = [];
  for (const path of ['one', 'two']) {
    const made = await api.post('/v1/webhooks', {
      url: `https://erp.example.com/${path}`,
      event_types: ['accounting_record.ready_for_export'],
    });
    if (made.status !== 200) throw new Error(`estate webhook: ${made.text}`);
    webhookIds.push(made.body.id);
  }
  // Two coding rules (so that their list has a second page), matching no record the tests make.
  const ruleIds: string[] = [];
  for (const name of ['first', 'second']) {
    const made = await api.post('/internal/v1/accounting/coding-rules', {
      name,
      conditions: { vendor_name: { operator: 'EQUALS', value: 'no such vendor' } },
      actions: { field_values: [{ field_id: fieldId, svc_id: spareValue.svc_id }] },
    });
    if (made.status !== 200) throw new Error(`estate coding rule: ${made.text}`);
    ruleIds.push(made.body.id);
  }
  // A partner app connected by an admin of the account, as the console's consent does.
  const partner = await newApp(ctx.db);
  const admin = await signedIn(ctx.app, ctx.db, 'ACCOUNT_ADMIN', api.accountId);
  await approve(admin, authorizeParams(partner.id, pkce().challenge));
  const cursor = async (url: string, query: Record<string, string>) => {
    const res = await api.get(url, { limit: '1', ...query });
    if (!res.body.next_cursor) throw new Error(`no cursor from ${url}: ${res.text}`);
    return res.body.next_cursor as string;
  };
  // A receipt uploaded to the first record.
  const receiptJpeg = await newJpeg();
  const receipt = await api.request('POST', receiptsUrl(records[0].id), {
    body: receiptJpeg,
    headers: { 'content-type': 'image/jpeg' },
  });
  if (receipt.status !== 200) throw new Error(`estate receipt: ${receipt.text}`);
  return {
    api,
    receiptId: receipt.body.receipt.id as string,
    receiptJpeg,
    spareClientId: spare.client_id,
    fieldId,
    value,
    spareValueId: spareValue.svc_id,
    ruleId: ruleIds[0]!,
    recordId: records[0].id,
    editable: { coding, split, merge, accept, bulkCoding },
    cursors: {
      fields: await cursor('/v1/fields', {}),
      values: await cursor(`/v1/fields/${fieldId}/values`, {}),
      records: await cursor('/v3/accounting/records', {}),
      search: await cursor('/internal/v1/accounting/records', {}),
      integrations: await cursor('/internal/v1/integrations', {}),
      webhooks: await cursor('/v1/webhooks', {}),
      events: await cursor('/v1/events', {}),
      codingRules: await cursor('/internal/v1/accounting/coding-rules', {}),
    },
    integration: { id: integrationIds[1]!, vendor, vendorAccountId: 'current' },
    connectedAppId: partner.id,
    webhook: {
      id: webhookIds[0]!,
      eventId: (await api.get('/v1/events', { limit: '100' })).body.items.find(
        (event: any) => event.type === 'accounting_record.ready_for_export',
      ).id,
    },
  };
}
