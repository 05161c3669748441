import type { Db, Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { isoToMicros, microsToIso, nowMicros } from '../../lib/clock.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { isRecord } from '../../lib/guards.js';
import { newId } from '../../lib/ids.js';
import { pageLinks, pageOf, type PageLinks } from '../../lib/pagination.js';
import { userNamesService } from '../users/user-names.service.js';
import { auditRepository } from './audit.repository.js';
import type { Static } from 'typebox';
import { isOneOf } from '../../lib/guards.js';
import type { AuditEvent } from './audit.schemas.js';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  type AuditAction,
  type AuditEventsTable,
  type AuditTarget,
} from './audit.tables.js';

export { AUDIT_ACTIONS, AUDIT_TARGETS, type AuditAction, type AuditTarget } from './audit.tables.js';

/**
 * The audit log: every administrative action of an account, recorded in the transaction of the action (so an action
 * and its record commit together or not at all), read-only to everyone. Services that make such changes call
 * `auditService.record` with the AuditSource their caller gave them.
 */

/**
 * Who did it, and from where: an API request's caller (auth's Caller: its account and actor) with its address and
 * request id, or the operator through the `svc` command. Declared here without auth's types: auth records its
 * actions through this module, so this module imports nothing of auth.
 */
export interface AuditSource {
  readonly accountId: string;
  readonly actor: { readonly type: 'client' | 'user' | 'system'; readonly id: string };
  readonly address: string | null;
  readonly requestId: string | null;
}

/** What listing needs of the caller: its account and the key that seals its cursors. */
interface Reader {
  readonly accountId: string;
  readonly cursorKey: Buffer;
}

/** An operator at the machine, through the `svc` command: no address, no request. */
export function operatorSource(accountId: string): AuditSource {
  return { accountId, actor: { type: 'system', id: 'svc-cli' }, address: null, requestId: null };
}

export type AuditEventDto = Static<typeof AuditEvent>;

export interface AuditQuery {
  action?: string[];
  actor_id?: string;
  target_type?: string;
  target_id?: string;
  'occurred_at[gte]'?: string;
  'occurred_at[lt]'?: string;
  cursor?: string;
  limit: number;
}

/** A stored entry as answered; a user who is a user of the account is named (`names`: user id → name). */
function rowToEvent(row: AuditEventsTable, names: ReadonlyMap<string, string>): AuditEventDto {
  // Written by record() below from JSON.stringify of an object, and never changed.
  const details: unknown = JSON.parse(row.details);
  // Written from the unions of audit.tables.ts: anything else would be a row this code did not write.
  if (!isOneOf(AUDIT_ACTIONS, row.action) || !isOneOf(AUDIT_ACTOR_TYPES, row.actor_type)) throw errors.internal();
  return {
    id: row.event_id,
    occurred_at: microsToIso(row.occurred_at),
    action: row.action,
    actor: actorOf(row.actor_type, row.actor_id, names),
    target: { type: row.target_type, id: row.target_id },
    address: row.address,
    request_id: row.request_id,
    details: isRecord(details) ? details : {},
  };
}

function actorOf(type: AuditEventDto['actor']['type'], id: string, names: ReadonlyMap<string, string>) {
  const name = type === 'user' ? names.get(id) : undefined;
  return name === undefined ? { type, id } : { type, id, name };
}

function time(value: string | undefined, path: string): number | undefined {
  if (value === undefined) return undefined;
  const micros = isoToMicros(value);
  if (micros === null) throw errors.invalidField(path, 'must be an RFC 3339 date-time with a time zone');
  return micros;
}

export const auditService = {
  /** Records one action in the caller's transaction (`ex`): it commits with the action, or neither does. */
  async record(
    ex: Executor,
    source: AuditSource,
    action: AuditAction,
    target: { type: AuditTarget; id: string },
    details: Record<string, unknown> = {},
  ): Promise<void> {
    await auditRepository.insert(ex, {
      account_id: source.accountId,
      event_id: newId('aud'),
      occurred_at: nowMicros(),
      actor_type: source.actor.type,
      actor_id: source.actor.id,
      action,
      target_type: target.type,
      target_id: target.id,
      address: source.address,
      request_id: source.requestId,
      details: JSON.stringify(details),
    });
  },

  /**
   * When the account was deleted (`svc account delete`), or null. Its audit log outlives it under its id, so the id
   * is never given to another account (which would read that log as its own).
   */
  async accountDeletedAt(ex: Executor, accountId: string): Promise<number | null> {
    return (await auditRepository.lastAt(ex, accountId, 'account.deleted')) ?? null;
  },

  /** The account's audit log, newest first, filtered; a sealed cursor bound to the filters. */
  async list(db: Db, auth: Reader, query: AuditQuery): Promise<{ items: AuditEventDto[] } & PageLinks> {
    const filter = {
      actions: query.action,
      actorId: query.actor_id,
      targetType: query.target_type,
      targetId: query.target_id,
      from: time(query['occurred_at[gte]'], '/query/occurred_at[gte]'),
      until: time(query['occurred_at[lt]'], '/query/occurred_at[lt]'),
    };
    const binding = { ...filter, actions: filter.actions ?? [] };
    let after: readonly [number, string] | undefined;
    if (query.cursor) {
      const [at, id] = openCursor(auth.cursorKey, 'audit_events', binding, query.cursor);
      after = [Number(at), String(id)];
    }
    const rows = await auditRepository.list(db.direct, auth.accountId, filter, { after, limit: query.limit });
    const page = pageOf(rows, query.limit);
    const userIds = page.items.filter((row) => row.actor_type === 'user').map((row) => row.actor_id);
    // Read at each answer: what is stored is the actor's id, and a name shown is the user's name now.
    const names = await userNamesService.namesOf(db.direct, auth.accountId, userIds);
    return {
      items: page.items.map((row) => rowToEvent(row, names)),
      ...pageLinks(page, (last) =>
        sealCursor(auth.cursorKey, 'audit_events', binding, [last.occurred_at, last.event_id]),
      ),
    };
  },
};
