import { auditService, type AuditSource } from '../audit/audit.service.js';
import type { Db, Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { pageLinks, pageOf, type PageLinks } from '../../lib/pagination.js';
import type { AuthContext, Tenant } from '../auth/auth.service.js';
import { deliveriesRepository } from './deliveries.repository.js';
import { announceDeliveries } from './events.bell.js';
import { eventsRepository } from './events.repository.js';
import { isEventType, type AccountEventType } from './events.service.js';
import { webhooksRepository as repo } from './webhooks.repository.js';
import type { WebhookEndpointCreate, WebhookEndpointDto, WebhookEndpointUpdate } from './webhooks.schemas.js';
import { newSecret } from './webhooks.signing.js';
import type { WebhookEndpointsTable } from './webhooks.tables.js';
import { targetRefusal, type TargetRules } from './webhooks.targets.js';

export type { TargetRules } from './webhooks.targets.js';

/**
 * The most webhook endpoints an account may have, enabled or disabled (docs/webhooks.md, "Limits"): each one is a
 * stream of deliveries the dispatcher serves, so an account's share of it is bounded from the start.
 */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

export const endpointNotFound = (id: string) => errors.notFound(`Webhook endpoint ${id}`, { webhook_id: id });
const notFound = endpointNotFound;

export function eventTypesOf(row: WebhookEndpointsTable): AccountEventType[] {
  const parsed: unknown = JSON.parse(row.event_types_json);
  return Array.isArray(parsed)
    ? parsed.filter((t): t is AccountEventType => typeof t === 'string' && isEventType(t))
    : [];
}

function endpointDto(row: WebhookEndpointsTable): WebhookEndpointDto {
  return {
    id: row.endpoint_id,
    url: row.url,
    description: row.description,
    event_types: eventTypesOf(row),
    status: row.status,
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at === null ? null : microsToIso(Number(row.disabled_at)),
    created_at: microsToIso(Number(row.created_at)),
    updated_at: microsToIso(Number(row.updated_at)),
  };
}

function checkUrl(url: string, rules: TargetRules): void {
  const refusal = targetRefusal(url, rules);
  if (refusal) throw errors.webhookUrlRefused(refusal);
}

/** The secrets deliveries are signed with now: the current one, and the previous one until it expires. */
export function validSecrets(
  row: Pick<WebhookEndpointsTable, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  now: number,
): { secret: string; expiresAt: number | null }[] {
  const secrets: { secret: string; expiresAt: number | null }[] = [{ secret: row.secret, expiresAt: null }];
  if (row.previous_secret !== null && row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now) {
    secrets.push({ secret: row.previous_secret, expiresAt: Number(row.previous_secret_expires_at) });
  }
  return secrets;
}

const lastSeq = (ex: Executor, accountId: string) => eventsRepository.lastSeq(ex, accountId);

/** How long events, and the delivery log of settled deliveries, are kept. */
const RETENTION = 30 * 24 * 3_600_000_000;

/** The account's webhook endpoints (docs/webhooks.md); every write runs in its caller's transaction. */
export const webhooksService = {
  /**
   * Deletes events, attempts and settled deliveries older than the retention (the maintenance sweep, every ten
   * minutes; indexed by time, so each pass reads only what it deletes).
   */
  async deleteExpired(db: Db, now: number): Promise<number> {
    const before = now - RETENTION;
    const events = await db.write((ex) => eventsRepository.deleteBefore(ex, before));
    return events + (await db.write((ex) => deliveriesRepository.sweep(ex, before)));
  },

  /**
   * A new ENABLED endpoint, sent the events that come after it; answered once with its secret. Refused (409) when
   * the account has MAX_ENDPOINTS_PER_ACCOUNT already.
   */
  async create(
    ex: Executor,
    tenant: AuditSource,
    input: WebhookEndpointCreate,
    rules: TargetRules,
  ): Promise<WebhookEndpointDto & { secret: string }> {
    checkUrl(input.url, rules);
    await repo.lockEndpoints(ex, tenant.accountId);
    if ((await repo.count(ex, tenant.accountId)) >= MAX_ENDPOINTS_PER_ACCOUNT) {
      throw errors.webhookEndpointLimitReached(MAX_ENDPOINTS_PER_ACCOUNT);
    }
    const now = nowMicros();
    const row: WebhookEndpointsTable = {
      account_id: tenant.accountId,
      endpoint_id: newId('whk'),
      url: input.url,
      description: input.description ?? null,
      event_types_json: JSON.stringify(input.event_types),
      status: 'ENABLED',
      disabled_reason: null,
      disabled_at: null,
      secret: newSecret(),
      previous_secret: null,
      previous_secret_expires_at: null,
      fanned_seq: await lastSeq(ex, tenant.accountId),
      failing_since: null,
      created_at: now,
      updated_at: now,
    };
    await repo.insert(ex, row);
    await auditService.record(
      ex,
      tenant,
      'webhook_endpoint.created',
      { type: 'webhook_endpoint', id: row.endpoint_id },
      {
        url: row.url,
        event_types: input.event_types,
      },
    );
    return { ...endpointDto(row), secret: row.secret };
  },

  /** Every endpoint of the account, for the operator (`svc webhooks list`). */
  async listAll(ex: Executor, tenant: Tenant): Promise<WebhookEndpointDto[]> {
    return (await repo.list(ex, tenant.accountId, undefined, 100_000)).map(endpointDto);
  },

  async get(ex: Executor, tenant: Tenant, endpointId: string): Promise<WebhookEndpointDto> {
    const row = await repo.find(ex, tenant.accountId, endpointId);
    if (!row) throw notFound(endpointId);
    return endpointDto(row);
  },

  async list(
    ex: Executor,
    auth: AuthContext,
    query: { cursor?: string; limit: number },
  ): Promise<{ items: WebhookEndpointDto[] } & PageLinks> {
    const afterId = query.cursor ? String(openCursor(auth.cursorKey, 'webhooks', {}, query.cursor)[0]) : undefined;
    const page = pageOf(await repo.list(ex, auth.accountId, afterId, query.limit), query.limit);
    return {
      items: page.items.map(endpointDto),
      ...pageLinks(page, (last) => sealCursor(auth.cursorKey, 'webhooks', {}, [last.endpoint_id])),
    };
  },

  /**
   * Absent members unchanged. DISABLED: its waiting deliveries pause, and the reason names who disabled it.
   * ENABLED (from DISABLED): the paused deliveries are due at once, and the endpoint takes the events from now on.
   */
  async update(
    ex: Executor,
    caller: AuditSource,
    endpointId: string,
    input: WebhookEndpointUpdate,
    rules: TargetRules,
  ): Promise<WebhookEndpointDto> {
    if (input.url !== undefined) checkUrl(input.url, rules);
    const row = await repo.find(ex, caller.accountId, endpointId);
    if (!row) throw notFound(endpointId);
    const now = nowMicros();
    const changes: Partial<WebhookEndpointsTable> = { updated_at: now };
    if (input.url !== undefined) changes.url = input.url;
    if (input.event_types !== undefined) changes.event_types_json = JSON.stringify(input.event_types);
    if (input.description !== undefined) changes.description = input.description;
    if (input.status === 'DISABLED' && row.status === 'ENABLED') {
      Object.assign(changes, {
        status: 'DISABLED',
        disabled_at: now,
        disabled_reason: `Disabled by ${caller.actor.type} ${caller.actor.id}.`,
      });
      await repo.pauseWaiting(ex, caller.accountId, endpointId, now);
    } else if (input.status === 'ENABLED' && row.status === 'DISABLED') {
      Object.assign(changes, {
        status: 'ENABLED',
        disabled_at: null,
        disabled_reason: null,
        failing_since: null,
        fanned_seq: await lastSeq(ex, caller.accountId),
      });
      await repo.resume(ex, caller.accountId, endpointId, now);
      await announceDeliveries(ex);
    }
    const updated = await repo.update(ex, caller.accountId, endpointId, changes);
    if (!updated) throw notFound(endpointId);
    const { updated_at: _, ...changed } = changes;
    await auditService.record(
      ex,
      caller,
      'webhook_endpoint.updated',
      { type: 'webhook_endpoint', id: endpointId },
      {
        changed: Object.keys(changed).filter((k) => !['disabled_at', 'fanned_seq', 'failing_since'].includes(k)),
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(changed.status !== undefined ? { status: changed.status } : {}),
      },
    );
    return endpointDto(updated);
  },

  /** Deletes the endpoint with its deliveries and log; the events stay in the feed. */
  async delete(ex: Executor, tenant: AuditSource, endpointId: string): Promise<Record<string, never>> {
    if (!(await repo.delete(ex, tenant.accountId, endpointId))) throw notFound(endpointId);
    await auditService.record(ex, tenant, 'webhook_endpoint.deleted', { type: 'webhook_endpoint', id: endpointId });
    return {};
  },

  async secrets(ex: Executor, tenant: Tenant, endpointId: string) {
    const row = await repo.find(ex, tenant.accountId, endpointId);
    if (!row) throw notFound(endpointId);
    return secretsDto(row, nowMicros());
  },

  /** A new current secret; the old one still signs (beside it) for `previousExpiresIn` seconds. */
  async rotate(ex: Executor, tenant: AuditSource, endpointId: string, previousExpiresIn: number) {
    const row = await repo.find(ex, tenant.accountId, endpointId);
    if (!row) throw notFound(endpointId);
    const now = nowMicros();
    const updated = await repo.update(ex, tenant.accountId, endpointId, {
      secret: newSecret(),
      previous_secret: previousExpiresIn > 0 ? row.secret : null,
      previous_secret_expires_at: previousExpiresIn > 0 ? now + previousExpiresIn * 1_000_000 : null,
      updated_at: now,
    });
    if (!updated) throw notFound(endpointId);
    await auditService.record(
      ex,
      tenant,
      'webhook_endpoint.secret_rotated',
      { type: 'webhook_endpoint', id: endpointId },
      { previous_secret_valid_seconds: previousExpiresIn },
    );
    return secretsDto(updated, now);
  },
};

function secretsDto(row: WebhookEndpointsTable, now: number) {
  return {
    secrets: validSecrets(row, now).map((s) => ({
      secret: s.secret,
      expires_at: s.expiresAt === null ? null : microsToIso(s.expiresAt),
    })),
  };
}
