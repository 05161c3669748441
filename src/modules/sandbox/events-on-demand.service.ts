import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { Caller } from '../auth/auth.service.js';
import { accountingService } from '../accounting/accounting.service.js';
import { fieldsService } from '../fields/fields.service.js';
import { integrationsService } from '../integrations/integrations.service.js';
import { eventsService, type NewAccountEvent } from '../webhooks/events.service.js';

/** What a connector's test may ask to be announced (Brex's compatible form comes with ready_for_export). */
export const FIREABLE = [
  'accounting_record.ready_for_export',
  'accounting_record.exported',
  'accounting_record.export_failed',
  'accounting_record.reopened',
  'field_values.changed',
  'integration.connected',
  'integration.disconnected',
] as const;
export type FireableType = (typeof FIREABLE)[number];

export interface FireRequest {
  type: FireableType;
  /** The record, field or integration the event names: it must exist in the account. */
  object_id: string;
  /** export_failed: the message (default "Sandbox: an export failure on demand"). */
  error_message?: string;
  /** field_values.changed: the batch's operation (default UPDATED) and the values it names (default none). */
  operation?: 'CREATED' | 'UPDATED' | 'DELETED';
  svc_ids?: string[];
}

/**
 * An event of the account on demand (docs/sandbox.md, "Events on demand"), written to the account's event table as
 * the services write theirs: the feed lists it and the account's webhook endpoints receive it, signed, with retries.
 * The object it names must exist in the account (a record's event carries the record's current version), so a
 * connector that fetches it finds it; nothing else changes.
 */
export async function fireEvent(db: Db, caller: Caller, request: FireRequest): Promise<{ id: string; type: string }[]> {
  if (request.type !== 'field_values.changed' && (request.operation !== undefined || request.svc_ids !== undefined)) {
    throw errors.invalidField('/operation', 'and svc_ids are for field_values.changed only');
  }
  return db.write(async (ex) => {
    const id = request.object_id;
    let event: NewAccountEvent;
    switch (request.type) {
      case 'field_values.changed':
        await fieldsService.require(ex, caller, id);
        event = {
          type: request.type,
          fieldId: id,
          operation: request.operation ?? 'UPDATED',
          svcIds: request.svc_ids ?? [],
        };
        break;
      case 'integration.connected':
      case 'integration.disconnected':
        await integrationsService.get(ex, caller, id);
        event = { type: request.type, integrationId: id };
        break;
      case 'accounting_record.export_failed': {
        const record = await accountingService.get(ex, caller, id, false);
        const errorMessage = request.error_message ?? 'Sandbox: an export failure on demand';
        event = { type: request.type, recordId: id, version: record.version, errorMessage };
        break;
      }
      default: {
        const record = await accountingService.get(ex, caller, id, false);
        event = { type: request.type, recordId: id, version: record.version };
      }
    }
    return eventsService.emit(ex, caller, [event]);
  });
}
