import type { Kysely } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { isoToMicros, nowMicros } from '../src/lib/clock.js';
import { MAX_ENDPOINTS_PER_ACCOUNT } from '../src/modules/webhooks/webhooks.service.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { waitForLockWaiter } from './support/field-values.js';
import { SECRET, WEBHOOK_ID, WEBHOOKS, webhookUrl } from './support/webhooks.js';

/** The words a refusal adds (webhooks.targets.ts): the setting that would allow the target. */
const SETTING = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true on the server allows private targets and plain http';

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

/** The account's endpoints as stored. */
async function storedEndpoints(ctx: TestContext, accountId: string): Promise<string[]> {
  const rows = await (ctx.db.direct as Kysely<any>)
    .selectFrom('webhook_endpoints')
    .select('endpoint_id')
    .where('account_id', '=', accountId)
    .orderBy('endpoint_id')
    .execute();
  return rows.map((r) => r.endpoint_id as string);
}

const limitReached = {
  error_code: 'WEBHOOK_ENDPOINT_LIMIT_REACHED',
  message: `An account may have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one before creating another. Nothing was created.`,
  details: { max_webhook_endpoints: MAX_ENDPOINTS_PER_ACCOUNT },
  request_id: expect.any(String),
};

describeEachDialect('webhook endpoints (default configuration: public https targets only)', (t) => {
  it(`caps an account at ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints, disabled ones included: one more is 409 naming the cap, and nothing is created`, async () => {
    expect(MAX_ENDPOINTS_PER_ACCOUNT).toBe(20);
    const api = await t.ctx.as(WRITE);
    const made: string[] = [];
    for (let i = 0; i < MAX_ENDPOINTS_PER_ACCOUNT; i++) {
      const res = await api.create(WEBHOOKS, { url: `https://erp.example.com/hook/${i}`, event_types: TYPES });
      expect(res.status, res.text).toBe(200);
      made.push(res.body.id);
    }
    // A disabled endpoint still counts: disabling makes no room.
    expect((await api.put(webhookUrl(made[0]!), { status: 'DISABLED' })).status).toBe(200);

    const over = await api.create(WEBHOOKS, { url: 'https://erp.example.com/one-more', event_types: TYPES });
    expect([over.status, over.body]).toEqual([409, limitReached]);
    expect(over.headers['x-request-id']).toBe(over.body.request_id);
    expect(await storedEndpoints(t.ctx, api.accountId)).toEqual([...made].sort());
    expect((await api.get(WEBHOOKS)).body.items.map((e: { id: string }) => e.id)).toEqual(made);

    // The refusal is stored under its Idempotency-Key like any business error: the same request replays it.
    const key = { 'idempotency-key': 'one-more' };
    const body = { url: 'https://erp.example.com/one-more', event_types: TYPES };
    const first = await api.post(WEBHOOKS, body, key);
    const replay = await api.post(WEBHOOKS, body, key);
    expect([first.status, replay.status, replay.headers['idempotent-replayed']]).toEqual([409, 409, 'true']);

    // Another account has its own count; deleting one of this account's makes room for one.
    const other = await t.ctx.as(WRITE);
    expect((await other.create(WEBHOOKS, body)).status).toBe(200);
    expect((await api.delete(webhookUrl(made[0]!))).status).toBe(200);
    const again = await api.create(WEBHOOKS, body);
    expect(again.status, again.text).toBe(200);
    expect((await api.create(WEBHOOKS, body)).body).toEqual(limitReached);
    expect(await storedEndpoints(t.ctx, api.accountId)).toHaveLength(MAX_ENDPOINTS_PER_ACCOUNT);
  });

  it('counts creates that race for the last place one after the other: exactly one is created', async () => {
    const api = await t.ctx.as(WRITE);
    for (let i = 0; i < MAX_ENDPOINTS_PER_ACCOUNT - 1; i++) {
      const res = await api.create(WEBHOOKS, { url: `https://erp.example.com/hook/${i}`, event_types: TYPES });
      expect(res.status).toBe(200);
    }
    const race = () =>
      Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          api.create(WEBHOOKS, { url: `https://erp.example.com/racer/${i}`, event_types: TYPES }),
        ),
      );
    let racers: Awaited<ReturnType<typeof race>>;
    if (t.dialect === 'postgres') {
      // Every racer is held at its insert by a lock on the table that the test takes from another connection
      // (reads pass it): without the count taken one create at a time, all six would have counted 19 by then.
      const holder = new pg.Client({ connectionString: t.ctx.database.url });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('lock table webhook_endpoints in share row exclusive mode');
        const racing = race();
        await waitForLockWaiter(t.ctx, 6);
        await holder.query('rollback');
        racers = await racing;
      } finally {
        await holder.end();
      }
    } else {
      racers = await race(); // one write transaction at a time (BEGIN IMMEDIATE)
    }
    expect(racers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const refused of racers.filter((r) => r.status === 409)) expect(refused.body).toEqual(limitReached);
    expect(await storedEndpoints(t.ctx, api.accountId)).toHaveLength(MAX_ENDPOINTS_PER_ACCOUNT);
  });

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
    expect(page2.body).toEqual({ items: [otherAnswered], has_next_page: false, next_cursor: null });

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
    expect([gone.status, gone.body]).toEqual([404, errorBody('NOT_FOUND', { details: { webhook_id: id } })]);
  });

  it('refuses plain http, credentials, unknown event types and literal private, loopback and metadata addresses', async () => {
    const api = await t.ctx.as(WRITE);
    const refused = async (url: string, event_types = TYPES) => {
      const res = await api.post(WEBHOOKS, { url, event_types });
      expect(res.status, url).toBe(400);
      return res.body.details.errors;
    };
    expect(await refused('http://erp.example.com/hook')).toEqual([
      { path: '/url', message: `must be an https URL (${SETTING})` },
    ]);
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

  it("says why a URL is refused in details.url_refused, for a client's own words; on create and on change", async () => {
    const api = await t.ctx.as(WRITE);
    const why = async (url: string) => {
      const res = await api.post(WEBHOOKS, { url, event_types: TYPES });
      expect([res.status, res.body.error_code], url).toEqual([400, 'INVALID_REQUEST']);
      return res.body.details.url_refused;
    };
    expect(await why('erp.example.com/hook')).toEqual({ reason: 'not_absolute_url' });
    expect(await why('http://erp.example.com/hook')).toEqual({ reason: 'scheme_not_allowed' });
    expect(await why('https://u:p@erp.example.com/')).toEqual({ reason: 'credentials_in_url' });
    expect(await why('https://10.1.2.3/')).toEqual({
      reason: 'address_not_public',
      address: '10.1.2.3',
      address_class: 'private',
    });
    expect(await why('https://[::1]:8443/')).toEqual({
      reason: 'address_not_public',
      address: '::1',
      address_class: 'loopback',
    });
    const made = await api.create(WEBHOOKS, { url: 'https://erp.example.com/hook', event_types: TYPES });
    const changed = await api.put(webhookUrl(made.body.id), { url: 'https://192.168.1.1/' });
    expect([changed.status, changed.body.details.url_refused]).toEqual([
      400,
      { reason: 'address_not_public', address: '192.168.1.1', address_class: 'private' },
    ]);
    expect((await api.get(webhookUrl(made.body.id))).body.url).toBe('https://erp.example.com/hook');
  });

  it('rotates the secret: the previous one stays valid beside the new one until it expires', async () => {
    const api = await t.ctx.as(WRITE);
    const made = await api.create(WEBHOOKS, { url: 'https://erp.example.com/hook', event_types: TYPES });
    const secretUrl = `${webhookUrl(made.body.id)}/secret`;
    expect((await api.get(secretUrl)).body).toEqual({ secrets: [{ secret: made.body.secret, expires_at: null }] });
    const asked = nowMicros();
    const rotated = await api.post(`${secretUrl}/rotate`, { previous_expires_in_seconds: 3600 });
    const answered = nowMicros();
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toEqual({
      secrets: [
        { secret: expect.stringMatching(SECRET), expires_at: null },
        { secret: made.body.secret, expires_at: expect.stringMatching(ISO_MICROS) },
      ],
    });
    expect(rotated.body.secrets[0].secret).not.toBe(made.body.secret);
    // An hour after the rotation, on the service's clock (this process's): between the asking and the answer.
    const expires = isoToMicros(rotated.body.secrets[1].expires_at)!;
    expect(expires).toBeGreaterThan(asked + 3600 * 1_000_000);
    expect(expires).toBeLessThan(answered + 3600 * 1_000_000);
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
    expect((await b.get(WEBHOOKS)).body).toEqual({ items: [], has_next_page: false, next_cursor: null });
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
