import type { EventType } from '@svc/client';

/** Every event type of the catalogue, in the catalogue's order, with what it announces (docs/webhooks.md). */
export const EVENT_TYPE_WORDS: Record<EventType, string> = {
  'accounting_record.ready_for_export': 'A record became ready for export',
  'accounting_record.exported': 'A record was exported',
  'accounting_record.export_failed': 'An export failed (with its message)',
  'accounting_record.reopened': 'An exported record was re-opened for correction',
  'accounting_record.receipt_attached': 'A receipt was attached to a record',
  'field_values.changed': 'Values of a field changed (one event per batch)',
  'integration.connected': 'An integration was connected',
  'integration.disconnected': 'An integration was disconnected',
  ACCOUNTING_RECORD_READY_FOR_EXPORT: 'Records became ready for export, in Brex’s own form',
};

export const EVENT_TYPES = Object.keys(EVENT_TYPE_WORDS).filter(isEventType);

export function isEventType(value: string): value is EventType {
  return Object.prototype.hasOwnProperty.call(EVENT_TYPE_WORDS, value);
}

/**
 * Whether the session's scopes may see and change the account's webhooks (webhooks.write, which reads them too).
 * The server decides on every request; this only spares others a screen that would answer 403.
 */
export function canManageWebhooks(scopes: readonly string[]): boolean {
  return scopes.includes('webhooks.write');
}
