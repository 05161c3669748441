import { expect, it } from 'vitest';
import { SvcClient } from '../../client/src/index.js';
import { describeLive } from './live-server.js';

const ADMIN_TOKEN = 'sandbox-operator-token-0123456789';

describeLive(
  'SDK: the sandbox’s events on demand and time',
  (s) => {
    it('fires an event of a record the feed then lists, and advances the account’s webhook schedules', async () => {
      const operator = new SvcClient({ baseUrl: s.live.url, token: ADMIN_TOKEN });
      const account = await operator.sandbox.createAccount({ scenario: 'export-failures', seed: 2 });
      const client = new SvcClient({
        baseUrl: s.live.url,
        clientId: account.client_id,
        clientSecret: account.client_secret,
      });
      const [record] = (await client.accountingRecords.query({ review_status: 'READY_FOR_EXPORT', limit: 1 })).items;
      const fired = await operator.sandbox.fireEvent(account.account_id, {
        type: 'accounting_record.exported',
        object_id: record!.id,
      });
      expect(fired.events.map((e) => e.type)).toEqual(['accounting_record.exported']);
      const feed = await client.events.list({ type: ['accounting_record.exported'] });
      expect(feed.items.map((e) => e.id)).toEqual([fired.events[0]!.id]);
      expect(await operator.sandbox.advanceTime(account.account_id, 60)).toEqual({ deliveries: 0, endpoints: 0 });
    });

    it('narrows a fault to one route and method, lists it, and expires tokens: the SDK fetches another', async () => {
      const operator = new SvcClient({ baseUrl: s.live.url, token: ADMIN_TOKEN });
      const account = await operator.sandbox.createAccount();
      const client = new SvcClient({
        baseUrl: s.live.url,
        clientId: account.client_id,
        clientSecret: account.client_secret,
        maxRetries: 0,
      });
      const fault = await operator.sandbox.setFault(account.client_id, {
        kind: '500',
        count: 1,
        method: 'GET',
        route: '/v1/fields/{id}',
      });
      expect(fault).toMatchObject({ method: 'GET', route: '/v1/fields/{id}', count: 1 });
      expect((await operator.sandbox.listFaults(account.client_id)).items).toEqual([fault]);
      const field = await client.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
      expect((await client.fields.list()).items).toHaveLength(1);
      await expect(client.fields.get(field.svc_id)).rejects.toMatchObject({ status: 500 });
      expect((await client.fields.get(field.svc_id)).svc_id).toBe(field.svc_id);

      // Its token expired now: the next call answers 401 once, and the SDK fetches a new token and goes on.
      expect(await operator.sandbox.expireTokens(account.client_id)).toEqual({ expired: 1 });
      expect((await client.fields.list()).items).toHaveLength(1);
    });
  },
  { SANDBOX: 'true', SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN },
);
