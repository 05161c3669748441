import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (docs/webhooks.md, "Verifying a delivery"), with the specification's own maintained
 * library: `whsec_` + base64 of 32 random bytes; `webhook-signature` is `v1,<base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>">`, one per valid secret (two while a rotation lasts), space-separated.
 */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The three headers of one attempt, signed with every secret given. */
export function signedHeaders(
  secrets: readonly string[],
  eventId: string,
  sentAt: Date,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, sentAt, body)).join(' '),
  };
}
