import { expect, it } from 'vitest';
import { isoToMicros, nowMicros } from '../../src/lib/clock.js';
import { hashSecret } from '../../src/modules/auth/auth.service.js';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';
import { svc } from '../support/processes.js';

const CLIENTS = '/internal/v1/clients';
const rotateUrl = (id: string) => `${CLIENTS}/${id}/rotate-secret`;

/** Seconds, in the service's clock's microseconds. */
const seconds = (n: number) => n * 1_000_000;

const tokenStatus = async (ctx: TestContext, id: string, secret: string) =>
  (
    await ctx.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      payload: { grant_type: 'client_credentials', client_id: id, client_secret: secret },
    })
  ).statusCode;

describeEachDialect('rotating an API client secret, with an overlap', (t) => {
  async function adminWithClient() {
    const admin = await Browser.signIn(t.ctx.app, await newUser(t.ctx.db, 'ACCOUNT_ADMIN'));
    const created = await admin.post(CLIENTS, { scopes: ['fields.read'] });
    expect(created.status).toBe(200);
    return { admin, id: created.body.client_id as string, secret: created.body.client_secret as string };
  }

  it('answers a new secret once; both work during the overlap, then the old one stops; tokens already issued stay', async () => {
    const { admin, id, secret } = await adminWithClient();
    const before = await t.ctx.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      payload: { grant_type: 'client_credentials', client_id: id, client_secret: secret },
    });
    const asked = nowMicros();
    const rotated = await admin.post(rotateUrl(id), { overlap_seconds: 600 });
    const answered = nowMicros();
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toEqual({
      client_id: id,
      client_secret: expect.stringMatching(/^svc_cs_[A-Za-z0-9_-]{43}$/),
      previous_secret_expires_at: expect.stringMatching(ISO_MICROS),
    });
    // 600 s after the rotation, on the service's clock (this process's): between the asking and the answer.
    const overlapEnds = isoToMicros(rotated.body.previous_secret_expires_at)!;
    expect(overlapEnds).toBeGreaterThan(asked + seconds(600));
    expect(overlapEnds).toBeLessThan(answered + seconds(600));
    const fresh = rotated.body.client_secret;
    expect(await tokenStatus(t.ctx, id, fresh)).toBe(200);
    expect(await tokenStatus(t.ctx, id, secret)).toBe(200);
    const stored = await t.ctx.db.direct
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', id)
      .executeTakeFirstOrThrow();
    expect([stored.secret_hash, stored.previous_secret_hash]).toEqual([hashSecret(fresh), hashSecret(secret)]);
    expect(JSON.stringify(stored)).not.toContain(fresh);

    // The overlap ends: the old secret no longer works, the new one does, and the earlier token still does.
    await t.ctx.db.direct
      .updateTable('oauth_clients')
      .set({ previous_secret_expires_at: 1 })
      .where('client_id', '=', id)
      .execute();
    expect(await tokenStatus(t.ctx, id, secret)).toBe(401);
    expect(await tokenStatus(t.ctx, id, fresh)).toBe(200);
    const fields = await t.ctx.app.inject({
      url: '/v1/fields',
      headers: { authorization: `Bearer ${before.json().access_token}` },
    });
    expect(fields.statusCode).toBe(200);

    // A second rotation with no overlap: only the newest works at once; the one before is gone.
    const again = await admin.post(rotateUrl(id), { overlap_seconds: 0 });
    expect(again.body.previous_secret_expires_at).toBeNull();
    expect(await tokenStatus(t.ctx, id, fresh)).toBe(401);
    expect(await tokenStatus(t.ctx, id, again.body.client_secret)).toBe(200);
  });

  it('defaults to a day; refuses what it must (another account, revoked, bad overlap, an Idempotency-Key, a bookkeeper) and changes nothing', async () => {
    const { admin, id, secret } = await adminWithClient();
    const stranger = await Browser.signIn(t.ctx.app, await newUser(t.ctx.db, 'ACCOUNT_ADMIN'));
    expect((await stranger.post(rotateUrl(id), {})).status).toBe(404);
    const bad = await admin.post(rotateUrl(id), { overlap_seconds: 604_801 });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe('INVALID_REQUEST');
    const keyed = await admin.post(rotateUrl(id), {}, { 'idempotency-key': 'k-1' });
    expect(keyed.status).toBe(400);
    const bookkeeper = await Browser.signIn(t.ctx.app, await newUser(t.ctx.db, 'BOOKKEEPER', admin.accountId));
    const forbidden = await bookkeeper.post(rotateUrl(id), {});
    expect([forbidden.status, forbidden.body.error_code]).toEqual([403, 'FORBIDDEN']);
    // Nothing of these changed the secret.
    expect(await tokenStatus(t.ctx, id, secret)).toBe(200);
    const stored = await t.ctx.db.direct
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored.previous_secret_hash).toBeNull();

    const asked = nowMicros();
    const rotated = await admin.post(rotateUrl(id), {});
    const answered = nowMicros();
    const overlapEnds = isoToMicros(rotated.body.previous_secret_expires_at)!;
    expect(overlapEnds).toBeGreaterThan(asked + seconds(86_400));
    expect(overlapEnds).toBeLessThan(answered + seconds(86_400));
    expect((await admin.delete(`${CLIENTS}/${id}`)).status).toBe(200);
    const revoked = await admin.post(rotateUrl(id), {});
    expect([revoked.status, revoked.body]).toEqual([
      404,
      errorBody('NOT_FOUND', { message: `Active client ${id} not found.`, details: { client_id: id } }),
    ]);
    // A revoked client's previous secret does not work either.
    expect(await tokenStatus(t.ctx, id, secret)).toBe(401);
  });

  it('svc clients rotate-secret prints the new secret; the overlap is a flag; mistakes exit 2', async () => {
    const env = { DATABASE_URL: t.ctx.database.url };
    const creds = await t.ctx.newClient(['fields.read']);
    const rotated = await svc(['clients', 'rotate-secret', creds.client_id, '--overlap-seconds', '60'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const answer = JSON.parse(rotated.stdout);
    expect(answer).toEqual({
      client_id: creds.client_id,
      client_secret: expect.stringMatching(/^svc_cs_/),
      previous_secret_expires_at: expect.stringMatching(ISO_MICROS),
    });
    expect(await tokenStatus(t.ctx, creds.client_id, creds.client_secret)).toBe(200);
    expect(await tokenStatus(t.ctx, creds.client_id, answer.client_secret)).toBe(200);
    const unknown = await svc(['clients', 'rotate-secret', 'cli_nothing'], env);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('no active client cli_nothing')]);
    const wrong = await svc(['clients', 'rotate-secret', creds.client_id, '--overlap-seconds', 'soon'], env);
    expect([wrong.code, wrong.stderr]).toEqual([2, expect.stringContaining('--overlap-seconds: a whole number')]);
  });
});
