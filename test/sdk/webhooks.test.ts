import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { SvcWebhookVerificationError, verifyWebhook } from '../../client/src/webhooks.js';
import { signedHeaders } from '../../src/modules/webhooks/webhooks.signing.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({
  id: 'evt_01j0',
  type: 'accounting_record.ready_for_export',
  timestamp: '2026-06-11T09:09:10.422192Z',
  account_id: 'acme',
  data: { object: 'accounting_record', id: 'accr_1', version: 3 },
});

/** A delivery as the specification's library signs it. */
function signed(secrets: string[], at = new Date(), id = 'evt_01j0', payload = body) {
  const signature = secrets.map((s) => new Webhook(s).sign(id, at, payload)).join(' ');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

describe('SDK: verifyWebhook (WebCrypto) against the standardwebhooks library', () => {
  it('accepts what the library signs, exactly when the library accepts it', async () => {
    const key = secret();
    const headers = signed([key]);
    expect(await verifyWebhook(key, body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(key).verify(body, headers)).toEqual(JSON.parse(body));
    // The server's own signing (the library) with two secrets during a rotation: either verifies.
    const [oldKey, newKey] = [secret(), secret()];
    const rotated = signedHeaders([newKey, oldKey], 'evt_x', new Date(), body);
    for (const k of [oldKey, newKey]) expect(await verifyWebhook(k, body, rotated)).toEqual(JSON.parse(body));
    // Several candidate secrets on the receiver's side; headers in any case, or a fetch Headers.
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await verifyWebhook([secret(), key], body, upper)).toEqual(JSON.parse(body));
    expect(await verifyWebhook(key, body, new Headers(headers))).toEqual(JSON.parse(body));
  });

  it('refuses what the library refuses: another body, id, secret or time, missing headers', async () => {
    const key = secret();
    const headers = signed([key]);
    const refused = async (payload: string, h: Record<string, string>, k = key) => {
      expect(() => new Webhook(k).verify(payload, h)).toThrow();
      const error = await verifyWebhook(k, payload, h).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SvcWebhookVerificationError);
      return (error as Error).message;
    };
    expect(await refused(`${body} `, headers)).toBe('No matching signature found');
    expect(await refused(body, { ...headers, 'webhook-id': 'evt_other' })).toBe('No matching signature found');
    expect(await refused(body, headers, secret())).toBe('No matching signature found');
    expect(await refused(body, signed([key], new Date(Date.now() - 400_000)))).toBe('Message timestamp too old');
    expect(await refused(body, signed([key], new Date(Date.now() + 400_000)))).toBe('Message timestamp too new');
    const { 'webhook-signature': _s, ...unsigned } = headers;
    expect(await refused(body, unsigned)).toBe('Missing required headers');
    expect(
      await refused(body, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }),
    ).toBe('No matching signature found');
  });
});
