import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { SECRET, WEBHOOK_ID, WEBHOOKS, webhookUrl } from './support/webhooks.js';

const WRITE = ['webhooks.write'] as const;
const TYPES = ['accounting_record.ready_for_export', 'ACCOUNTING_RECORD_READY_FOR_EXPORT'];

const endpoint = (url: string, event_types = TYPES, extra: Record<string, unknown> = {}) => ({
  id: expect.stringMatching(WEBHOOK_ID),
  url,
  description: null,
  event_types,
  status: 'ENABLED',
  disabled_reason: null,
  disabled_at: null,
  created_at: expect.stringMatching(ISO_MICROS),
  updated_at: expect.stringMatching(ISO_MICROS),
  ...extra,
});

describeEachDialect('webhook endpoints (default configuration: public https targets only)', (t) => {
  it('creates, gets, lists, updates, disables, enables and deletes an endpoint', async () => {
    const api = await t.ctx.as(WRITE);
    const made = await api.create(WEBHOOKS, { url: 'https://erp.example.com/hook', event_types: TYPES });
    expect(made.status, made.text).toBe(200);
    expect(made.body).toEqual({ ...endpoint('https://erp.example.com/hook'), secret: expect.stringMatching(SECRET) });
    const id = made.body.id;
    const { secret: _secret, ...answered } = made.body;
    expect((await api.get(webhookUrl(id))).body).toEqual(answered);

    const other = await api.create(WEBHOOKS, {
      url: 'https://erp.example.com/other',
      event_types: ['field_values.changed'],
      description: 'values',
    });
    const page1 = await api.get(WEBHOOKS, { limit: '1' });
    expect(page1.body.items).toEqual([answered]);
    const page2 = await api.get(WEBHOOKS, { limit: '1', cursor: page1.body.next_cursor });
    const { secret: _other, ...otherAnswered } = other.body;
    expect(page2.body).toEqual({ items: [otherAnswered], next_cursor: null });

    const changed = await api.put(webhookUrl(id), { url: 'https://erp.example.com/v2', description: 'ERP' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual(endpoint('https://erp.example.com/v2', TYPES, { description: 'ERP' }));

    const disabled = await api.put(webhookUrl(id), { status: 'DISABLED' });
    expect(disabled.body).toMatchObject({
      status: 'DISABLED',
      disabled_reason: `Disabled by client ${api.clientId}.`,
      disabled_at: expect.stringMatching(ISO_MICROS),
    });
    const enabled = await api.put(webhookUrl(id), { status: 'ENABLED' });
    expect(enabled.body).toMatchObject({ status: 'ENABLED', disabled_reason: null, disabled_at: null });

    expect([(await api.delete(webhookUrl(id))).status, (await api.delete(webhookUrl(id))).status]).toEqual([200, 404]);
    const gone = await api.get(webhookUrl(id));
    expect([gone.status, gone.body]).toEqual([
      404,
      errorBody('NOT_FOUND', { message: `Webhook endpoint ${id} not found.`, details: { webhook_id: id } }),
    ]);
  });

  it('refuses plain http, credentials, unknown event types and literal private, loopback and metadata addresses', async () => {
    const api = await t.ctx.as(WRITE);
    const refused = async (url: string, event_types = TYPES) => {
      const res = await api.post(WEBHOOKS, { url, event_types });
      expect(res.status, url).toBe(400);
      return res.body.details.errors;
    };
    expect(await refused('http://erp.example.com/hook')).toEqual([{ path: '/url', message: 'must be an https URL' }]);
    expect(await refused('https://user:pw@erp.example.com/')).toEqual([
      { path: '/url', message: 'must not carry credentials' },
    ]);
    for (const [url, kind] of [
      ['https://127.0.0.1/', 'loopback'],
      ['https://[::1]:8443/', 'loopback'],
      ['https://10.1.2.3/', 'private'],
      ['https://172.16.0.9/', 'private'],
      ['https://192.168.1.1/', 'private'],
      ['https://169.254.169.254/latest/meta-data/', 'link-local (cloud metadata included)'],
      ['https://[fe80::1]/', 'link-local (cloud metadata included)'],
      ['https://[fd00:ec2::254]/', 'private'],
      ['https://[::ffff:127.0.0.1]/', 'loopback'],
      ['https://100.100.100.200/', 'shared address space (carrier-grade NAT, some cloud metadata)'],
      ['https://0.0.0.0/', 'unspecified'],
    ] as const) {
      const [problem] = await refused(url);
      expect(problem.message, url).toMatch(new RegExp(`^must not name a ${kind.replace(/[()]/g, '\\$&')} address`));
    }
    expect((await refused('https://erp.example.com/', ['record.nope']))[0].path).toBe('/event_types/0');
    expect((await refused('https://erp.example.com/', []))[0].path).toBe('/event_types');
    expect((await api.get(WEBHOOKS)).body.items).toEqual([]);
  });

  it('rotates the secret: the previous one stays valid beside the new one until it expires', async () => {
    const api = await t.ctx.as(WRITE);
    const made = await api.create(WEBHOOKS, { url: 'https://erp.example.com/hook', event_types: TYPES });
    const secretUrl = `${webhookUrl(made.body.id)}/secret`;
    expect((await api.get(secretUrl)).body).toEqual({ secrets: [{ secret: made.body.secret, expires_at: null }] });
    const rotated = await api.post(`${secretUrl}/rotate`, { previous_expires_in_seconds: 3600 });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toEqual({
      secrets: [
        { secret: expect.stringMatching(SECRET), expires_at: null },
        { secret: made.body.secret, expires_at: expect.stringMatching(ISO_MICROS) },
      ],
    });
    expect(rotated.body.secrets[0].secret).not.toBe(made.body.secret);
    const expires = Date.parse(rotated.body.secrets[1].expires_at);
    expect(Math.abs(expires - Date.now() - 3_600_000)).toBeLessThan(60_000);
    expect((await api.get(secretUrl)).body).toEqual(rotated.body);
    // At once: only the new secret.
    const now = await api.post(`${secretUrl}/rotate`, { previous_expires_in_seconds: 0 });
    expect(now.body.secrets).toEqual([{ secret: expect.stringMatching(SECRET), expires_at: null }]);
  });

  it("answers 404 for another account's endpoints and lists none of them", async () => {
    const a = await t.ctx.as(WRITE);
    const b = await t.ctx.as(WRITE);
    const made = await a.create(WEBHOOKS, { url: 'https://erp.example.com/hook', event_types: TYPES });
    const id = made.body.id;
    for (const res of [
      await b.get(webhookUrl(id)),
      await b.put(webhookUrl(id), { status: 'DISABLED' }),
      await b.get(`${webhookUrl(id)}/secret`),
      await b.post(`${webhookUrl(id)}/secret/rotate`, {}),
      await b.get(`${webhookUrl(id)}/attempts`),
      await b.post(`${webhookUrl(id)}/redeliver`, { since: '2026-01-01T00:00:00Z' }),
      await b.delete(webhookUrl(id)),
    ]) {
      expect([res.status, res.body.error_code]).toEqual([404, 'NOT_FOUND']);
    }
    expect((await b.get(WEBHOOKS)).body).toEqual({ items: [], next_cursor: null });
    expect((await a.get(webhookUrl(id))).body.status).toBe('ENABLED');
  });

  it('reads with webhooks.read or .write, writes and shows secrets with webhooks.write only', async () => {
    const writer = await t.ctx.as(WRITE);
    const reader = await t.ctx.as(['webhooks.read'], writer.accountId);
    const made = await writer.create(WEBHOOKS, { url: 'https://erp.example.com/hook', event_types: TYPES });
    expect((await reader.get(WEBHOOKS)).status).toBe(200);
    expect((await reader.get(`${webhookUrl(made.body.id)}/attempts`)).status).toBe(200);
    for (const res of [
      await reader.post(WEBHOOKS, { url: 'https://erp.example.com/x', event_types: TYPES }),
      await reader.get(`${webhookUrl(made.body.id)}/secret`),
      await reader.put(webhookUrl(made.body.id), { status: 'DISABLED' }),
    ]) {
      expect([res.status, res.body.details]).toEqual([403, { required_scopes: ['webhooks.write'] }]);
    }
    const outsider = await t.ctx.as(['events.read'], writer.accountId);
    expect((await outsider.get(WEBHOOKS)).status).toBe(403);
  });
});
