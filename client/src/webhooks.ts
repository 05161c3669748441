/**
 * `@svc/client/webhooks`: verifies svc's webhook deliveries (Standard Webhooks: webhook-id, webhook-timestamp,
 * webhook-signature, HMAC-SHA256 with whsec_ secrets) and types their bodies. WebCrypto only, so it runs in
 * browsers, Node 20+, Deno and edge runtimes and the SDK keeps no dependency; it is tested against the
 * specification's own library (`standardwebhooks`), which signs svc's deliveries and which a receiver may use
 * instead: `new Webhook(secret).verify(body, headers)` accepts the same deliveries.
 */

/** The types of svc's own catalogue; docs/webhooks.md says what each announces. */
export type AccountingRecordEventType =
  | 'accounting_record.ready_for_export'
  | 'accounting_record.exported'
  | 'accounting_record.export_failed'
  | 'accounting_record.reopened'
  | 'accounting_record.receipt_attached';

interface Envelope<T extends string, D> {
  /** The event: the webhook-id of every delivery of it, and its id in GET /v1/events. */
  id: string;
  type: T;
  /** When the change happened (RFC 3339, UTC, microseconds). */
  timestamp: string;
  account_id: string;
  data: D;
}

export type AccountingRecordEvent = Envelope<
  AccountingRecordEventType,
  { object: 'accounting_record'; id: string; version: number; error_message?: string; receipt_id?: string }
>;
export type FieldValuesChangedEvent = Envelope<
  'field_values.changed',
  { object: 'field'; id: string; operation: 'CREATED' | 'UPDATED' | 'DELETED'; count: number; svc_ids: string[] }
>;
export type IntegrationEvent = Envelope<
  'integration.connected' | 'integration.disconnected',
  { object: 'integration'; id: string }
>;
/** Brex's "ready for export" body, which svc delivers as it is (its event id is the webhook-id header). */
export interface AccountingRecordReadyForExport {
  event_type: 'ACCOUNTING_RECORD_READY_FOR_EXPORT';
  accounting_record_ids: string[];
  company_id: string;
}
export type CompatReadyForExportEvent = Envelope<'ACCOUNTING_RECORD_READY_FOR_EXPORT', AccountingRecordReadyForExport>;

/** An item of GET /v1/events. */
export type AccountEvent =
  AccountingRecordEvent | FieldValuesChangedEvent | IntegrationEvent | CompatReadyForExportEvent;
export type AccountEventType = AccountEvent['type'];

/**
 * A test event, sent on request (`client.webhooks.sendTestEvent`, POST /v1/webhooks/{id}/test) to one endpoint
 * alone: no change of the account, never in the feed. Acknowledge it with a 2xx like any event.
 */
export type WebhookTestEvent = Envelope<'webhook.test', { object: 'webhook_endpoint'; id: string }>;

/**
 * What a webhook delivers: an event of svc's catalogue, Brex's body for ACCOUNTING_RECORD_READY_FOR_EXPORT, or a
 * test event.
 */
export type WebhookBody =
  Exclude<AccountEvent, CompatReadyForExportEvent> | AccountingRecordReadyForExport | WebhookTestEvent;

export class SvcWebhookVerificationError extends Error {
  override readonly name = 'SvcWebhookVerificationError';
}

/** The request's headers: a fetch `Headers`, or a plain object (Node's `req.headers`), any case. */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far webhook-timestamp may be from now, either way (default 300 s, as the specification's library). */
  toleranceSeconds?: number;
  /** Now (tests). */
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name)
      return Array.isArray(value) ? value[0] : typeof value === 'string' ? value : undefined;
  }
  return undefined;
}

function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Compares in time independent of where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

async function signature(secret: string, signed: string): Promise<string> {
  let key: Uint8Array;
  try {
    key = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new SvcWebhookVerificationError('The secret is not a whsec_ secret (base64)');
  }
  const cryptoKey = await globalThis.crypto.subtle.importKey(
    'raw',
    key.slice().buffer,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = await globalThis.crypto.subtle.sign('HMAC', cryptoKey, new TextEncoder().encode(signed));
  return bytesToBase64(new Uint8Array(mac));
}

/**
 * Checks that `body` (the raw text, exactly as received) was signed by svc with `secret` (or one of `secrets`,
 * while you switch after a rotation) within the tolerance, and answers it parsed. Throws
 * SvcWebhookVerificationError otherwise: answer 400 and svc retries. Deduplicate on `header webhook-id`: a
 * delivery can come more than once (at least once), always with the same id.
 */
export async function verifyWebhook(
  secret: string | readonly string[],
  body: string,
  headers: WebhookHeaders,
  options: VerifyOptions = {},
): Promise<WebhookBody> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new SvcWebhookVerificationError('Missing required headers');
  const sentAt = Number.parseInt(timestamp, 10);
  if (Number.isNaN(sentAt)) throw new SvcWebhookVerificationError('Invalid Signature Headers');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (now - sentAt > tolerance) throw new SvcWebhookVerificationError('Message timestamp too old');
  if (sentAt > now + tolerance) throw new SvcWebhookVerificationError('Message timestamp too new');
  const passed = signatures
    .split(' ')
    .map((s) => s.split(','))
    .filter(([version]) => version === 'v1')
    .map(([, value]) => value ?? '');
  for (const candidate of typeof secret === 'string' ? [secret] : secret) {
    const expected = await signature(candidate, `${id}.${timestamp}.${body}`);
    if (passed.some((value) => sameText(value, expected))) {
      const parsed: WebhookBody = JSON.parse(body);
      return parsed;
    }
  }
  throw new SvcWebhookVerificationError('No matching signature found');
}
