import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { pageOf } from '../../lib/pagination.js';
import type { AuthContext, Tenant } from '../auth/auth.service.js';
import { ringOnCommit } from './events.bell.js';
import { eventsRepository as repo } from './events.repository.js';
import type { AccountEventsTable } from './webhooks.tables.js';
import { prewrittenPage, type PrewrittenJson } from '../../lib/prewritten.js';

/**
 * The account's events (docs/webhooks.md): written by the services whose changes they announce, in the same
 * transaction (a transactional outbox), read as the event feed and delivered to webhook endpoints.
 */

/** Brex's own name for "ready for export", offered beside svc's catalogue in Brex's form (docs/webhooks.md). */
export const COMPAT_READY_FOR_EXPORT = 'ACCOUNTING_RECORD_READY_FOR_EXPORT';

/** Every event type, with what it announces. */
export const EVENT_TYPES = {
  'accounting_record.ready_for_export': 'A record became READY_FOR_EXPORT (ingested so, or moved there)',
  'accounting_record.exported': 'A successful export result moved a record to EXPORTED',
  'accounting_record.export_failed': 'A failed export result moved a record back to REVIEW (data.error_message)',
  'accounting_record.reopened': 'An EXPORTED record was moved back to REVIEW for correction',
  'accounting_record.receipt_attached': 'A receipt uploaded to svc was attached to a record (data.receipt_id)',
  'field_values.changed': "One batch created, updated or deleted values of a field (the batch's summary)",
  'integration.connected': 'An integration became ACTIVE (created or reactivated)',
  'integration.disconnected': 'An integration was disconnected',
  [COMPAT_READY_FOR_EXPORT]:
    "Records became READY_FOR_EXPORT, in Brex's form: {event_type, accounting_record_ids, company_id}, one event per change (a bulk move: every record of it)",
} as const;
export type AccountEventType = keyof typeof EVENT_TYPES;
export function isEventType(value: string): value is AccountEventType {
  return Object.prototype.hasOwnProperty.call(EVENT_TYPES, value);
}
export const EVENT_TYPE_NAMES: readonly AccountEventType[] = Object.keys(EVENT_TYPES).filter(isEventType);

/**
 * The one type outside the catalogue: a test event, sent on request to one endpoint (POST /v1/webhooks/{id}/test)
 * and delivered like any other (signed, logged, retried), but no business event: it is not in the account's feed,
 * no endpoint subscribes to it, and no other endpoint is sent it.
 */
export const TEST_EVENT_TYPE = 'webhook.test';
/** What an endpoint may be sent, and its delivery log may name: the catalogue, and test events. */
export type DeliveredEventType = AccountEventType | typeof TEST_EVENT_TYPE;
export const DELIVERED_EVENT_TYPES: readonly DeliveredEventType[] = [...EVENT_TYPE_NAMES, TEST_EVENT_TYPE];
export function isDeliveredEventType(value: string): value is DeliveredEventType {
  return value === TEST_EVENT_TYPE || isEventType(value);
}

type RecordEventType =
  | 'accounting_record.ready_for_export'
  | 'accounting_record.exported'
  | 'accounting_record.reopened'
  | 'accounting_record.export_failed';

/** An event to write, as the services that announce changes give it. */
export type NewAccountEvent = { occurredAt?: number } & (
  | { type: Exclude<RecordEventType, 'accounting_record.export_failed'>; recordId: string; version: number }
  | { type: 'accounting_record.export_failed'; recordId: string; version: number; errorMessage: string }
  | { type: 'accounting_record.receipt_attached'; recordId: string; version: number; receiptId: string }
  | {
      type: 'field_values.changed';
      fieldId: string;
      operation: 'CREATED' | 'UPDATED' | 'DELETED';
      svcIds: readonly string[];
    }
  | { type: 'integration.connected' | 'integration.disconnected'; integrationId: string }
);

/** Brex's event lists the records of one change; more than this many are split over several events. */
const COMPAT_IDS_PER_EVENT = 1000;

function dataOf(event: NewAccountEvent): object {
  switch (event.type) {
    case 'accounting_record.export_failed':
      return {
        object: 'accounting_record',
        id: event.recordId,
        version: event.version,
        error_message: event.errorMessage,
      };
    case 'accounting_record.receipt_attached':
      return { object: 'accounting_record', id: event.recordId, version: event.version, receipt_id: event.receiptId };
    case 'field_values.changed':
      return {
        object: 'field',
        id: event.fieldId,
        operation: event.operation,
        count: event.svcIds.length,
        svc_ids: event.svcIds,
      };
    case 'integration.connected':
    case 'integration.disconnected':
      return { object: 'integration', id: event.integrationId };
    default:
      return { object: 'accounting_record', id: event.recordId, version: event.version };
  }
}

/** An event as the feed answers it and as webhooks carry it (but the compatible form: see deliveryBody). */
export function eventJson(row: AccountEventsTable): string {
  return `{"id":${JSON.stringify(row.event_id)},"type":${JSON.stringify(row.type)},"timestamp":"${microsToIso(Number(row.occurred_at))}","account_id":${JSON.stringify(row.account_id)},"data":${row.data_json}}`;
}

/** The body a webhook delivers: the event, or for ACCOUNTING_RECORD_READY_FOR_EXPORT Brex's own body (its data). */
export function deliveryBody(row: AccountEventsTable): string {
  return row.type === COMPAT_READY_FOR_EXPORT ? row.data_json : eventJson(row);
}

export const eventsService = {
  /**
   * Writes `events` of the account in the caller's transaction: they commit with the change they announce, or
   * not at all. Records that became ready for export are also announced in Brex's form, one event for all of
   * them. Take no lock after calling this: the account's event counter stays locked until the commit. Answers the
   * events written (ids and types), in order.
   */
  async emit(
    ex: Executor,
    tenant: Tenant,
    events: readonly NewAccountEvent[],
  ): Promise<{ id: string; type: string }[]> {
    if (events.length === 0) return [];
    const now = nowMicros();
    const drafts: { type: AccountEventType; occurredAt: number; data: object }[] = events.map((e) => ({
      type: e.type,
      occurredAt: e.occurredAt ?? now,
      data: dataOf(e),
    }));
    const ready = events.flatMap((e) =>
      e.type === 'accounting_record.ready_for_export'
        ? [{ recordId: e.recordId, occurredAt: e.occurredAt ?? now }]
        : [],
    );
    for (let i = 0; i < ready.length; i += COMPAT_IDS_PER_EVENT) {
      const chunk = ready.slice(i, i + COMPAT_IDS_PER_EVENT);
      drafts.push({
        type: COMPAT_READY_FOR_EXPORT,
        occurredAt: Math.max(...chunk.map((e) => e.occurredAt)),
        data: {
          event_type: COMPAT_READY_FOR_EXPORT,
          accounting_record_ids: chunk.map((e) => e.recordId),
          company_id: tenant.accountId,
        },
      });
    }
    const first = await repo.reserve(ex, tenant.accountId, drafts.length);
    const rows = drafts.map((d, i) => ({
      account_id: tenant.accountId,
      seq: first + i,
      event_id: newId('evt'),
      type: d.type,
      occurred_at: d.occurredAt,
      data_json: JSON.stringify(d.data),
    }));
    await repo.insertMany(ex, rows);
    ringOnCommit(ex);
    return rows.map((row) => ({ id: row.event_id, type: row.type }));
  },

  /**
   * Writes a test event for one endpoint in the caller's transaction (webhooks.test-event.ts makes its delivery):
   * `{object: "webhook_endpoint", id}`. It takes a seq as every event does (the table's key), and the feed skips it.
   * Take no lock after calling this: the account's event counter stays locked until the commit.
   */
  async emitTest(ex: Executor, tenant: Tenant, endpointId: string, eventId: string): Promise<AccountEventsTable> {
    const row: AccountEventsTable = {
      account_id: tenant.accountId,
      seq: await repo.reserve(ex, tenant.accountId, 1),
      event_id: eventId,
      type: TEST_EVENT_TYPE,
      occurred_at: nowMicros(),
      data_json: JSON.stringify({ object: 'webhook_endpoint', id: endpointId }),
    };
    await repo.insertMany(ex, [row]);
    ringOnCommit(ex);
    return row;
  },

  /**
   * The account's events after the cursor, in commit order, pre-written (lib/prewritten.ts). The feed has no end:
   * `next_cursor` is always given (where to ask next, also when nothing new came), and `has_next_page` says whether
   * more events are there already (`has_more`, its deprecated name, too). Without a cursor: from the oldest event kept. `types` keeps only events of
   * those types; the cursor is bound to them (in any order), so it cannot be replayed with other types.
   */
  async feed(
    ex: Executor,
    auth: AuthContext,
    query: { cursor?: string; limit: number; types?: readonly AccountEventType[] },
  ): Promise<PrewrittenJson> {
    const types = query.types ? [...new Set(query.types)].sort() : undefined;
    // Without types the binding stays {}: cursors handed out before the filter existed keep working.
    const binding = types ? { type: types } : {};
    let after = 0;
    if (query.cursor) {
      const [seq] = openCursor(auth.cursorKey, 'account_events', binding, query.cursor);
      if (typeof seq !== 'number') throw errors.invalidCursor();
      after = seq;
    }
    // Test events are one endpoint's, not the account's: never in the feed.
    const filter = types ? { types } : { except: TEST_EVENT_TYPE };
    const page = pageOf(await repo.page(ex, auth.accountId, after, query.limit, filter), query.limit);
    const last = page.items.at(-1);
    const next = sealCursor(auth.cursorKey, 'account_events', binding, [last ? Number(last.seq) : after]);
    return prewrittenPage(`[${page.items.map(eventJson).join(',')}]`, {
      has_next_page: page.hasMore,
      next_cursor: next,
      has_more: page.hasMore,
    });
  },
};
