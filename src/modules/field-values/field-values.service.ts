import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { nowMicros } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { AuthContext, Tenant } from '../auth/auth.service.js';
import { codingsService } from './field-values.codings.js';
import { valueSearchService } from './field-values.search.js';
import { fieldsService } from '../fields/fields.service.js';
import { eventsService } from '../webhooks/events.service.js';
import {
  addressLists,
  addressOf,
  notFound,
  rejectRepeatedAddresses,
  resolveAddresses,
} from './field-values.addressing.js';
import { findConflicts, type Conflict } from './field-values.conflicts.js';
import { isForeignKeyViolation } from '../../db/failures.js';
import { fieldValuesRepository as repo } from './field-values.repository.js';
import { fieldValuePagesRepository as pages } from './field-values.pages.repository.js';
import {
  FieldValueShape,
  type Address,
  type FieldValueCreate,
  type FieldValueDto,
  type FieldValueUpdate,
} from './field-values.schemas.js';
import type { FieldValuesTable } from './field-values.tables.js';
import { prewrittenPage, type PrewrittenJson } from '../../lib/prewritten.js';

export const FIELD_VALUE_ID_PREFIX = 'efo';

/** A stored value as answered. */
const answer = (row: FieldValuesTable): FieldValueDto => FieldValueShape.toObject(row, { fieldId: row.field_id });

const bit = (flag: boolean | null | undefined): number | null =>
  flag === undefined || flag === null ? null : flag ? 1 : 0;

/** Sorted distinct entries, so that a cursor is bound to the filter's meaning, not its spelling. */
const normalised = (list: string[] | undefined): string[] | null => (list ? [...new Set(list)].sort() : null);

function conflictError(conflicts: Conflict[]): never {
  throw errors.conflict('remote_id and value_id must be unique within a field; nothing was created.', { conflicts });
}

export type { Coding, CodingLookup, CodingRef, ValueRef } from './field-values.codings.js';

export const fieldValuesService = {
  ...codingsService,
  ...valueSearchService,

  async create(
    ex: Executor,
    tenant: Tenant,
    fieldId: string,
    items: FieldValueCreate[],
  ): Promise<{ items: FieldValueDto[] }> {
    await fieldsService.require(ex, tenant, fieldId);
    const lookup = (lists: { remoteIds: string[]; valueIds: string[] }) =>
      repo.findAddressed(ex, tenant.accountId, fieldId, { svcIds: [], ...lists });

    const before = await findConflicts(items, lookup);
    if (before.length > 0) conflictError(before);

    const now = nowMicros();
    const rows: FieldValuesTable[] = items.map((item) => ({
      account_id: tenant.accountId,
      field_id: fieldId,
      svc_id: newId(FIELD_VALUE_ID_PREFIX),
      value: item.value,
      remote_id: item.remote_id ?? null,
      value_id: item.value_id ?? null,
      is_disabled: item.is_disabled ? 1 : 0,
      created_at: now,
      updated_at: now,
    }));
    let inserted: Set<string>;
    try {
      inserted = await repo.insertMany(ex, rows);
    } catch (error) {
      if (isForeignKeyViolation(error)) throw errors.notFound(`Field ${fieldId}`, { field_id: fieldId });
      throw error;
    }
    if (inserted.size < rows.length) {
      // A concurrent create committed one of our identifiers after the check above: name the clashes
      // (this transaction's own rows excluded) and roll back.
      const ours = new Set(rows.map((r) => r.svc_id));
      const after = await findConflicts(items, async (lists) =>
        (await lookup(lists)).filter((row) => !ours.has(row.svc_id)),
      );
      conflictError(after);
    }
    const svcIds = rows.map((r) => r.svc_id);
    await eventsService.emit(ex, tenant, [{ type: 'field_values.changed', fieldId, operation: 'CREATED', svcIds }]);
    return { items: rows.map((row) => answer(row)) };
  },

  async get(ex: Executor, tenant: Tenant, fieldId: string, svcId: string): Promise<FieldValueDto> {
    const row = await repo.find(ex, tenant.accountId, fieldId, svcId);
    if (row) return answer(row);
    await fieldsService.require(ex, tenant, fieldId); // a missing field is named as such
    throw errors.notFound(`Field value ${svcId}`, { field_id: fieldId, svc_id: svcId });
  },

  /** A page of values, pre-written (lib/prewritten.ts): its items written by SQLite or by their shape (the repository). */
  async list(
    ex: Executor,
    auth: AuthContext,
    fieldId: string,
    query: {
      svcIds?: string[];
      remoteIds?: string[];
      valueIds?: string[];
      value?: string;
      cursor?: string;
      limit: number;
    },
  ): Promise<PrewrittenJson> {
    await fieldsService.require(ex, auth, fieldId);
    const filters = {
      field_id: fieldId,
      svc_ids: normalised(query.svcIds),
      remote_ids: normalised(query.remoteIds),
      value_ids: normalised(query.valueIds),
      value: query.value ?? null,
    };
    const afterId = query.cursor
      ? String(openCursor(auth.cursorKey, 'field_values', filters, query.cursor)[0])
      : undefined;
    const page = await pages.listPage(ex, auth.accountId, fieldId, {
      svcIds: filters.svc_ids,
      remoteIds: filters.remote_ids,
      valueIds: filters.value_ids,
      value: filters.value,
      afterId,
      limit: query.limit,
    });
    return prewrittenPage(page.itemsJson, {
      next_cursor:
        page.hasMore && page.lastId !== null
          ? sealCursor(auth.cursorKey, 'field_values', filters, [page.lastId])
          : null,
    });
  },

  async update(
    ex: Executor,
    tenant: Tenant,
    fieldId: string,
    items: FieldValueUpdate[],
  ): Promise<{ items: FieldValueDto[] }> {
    const addresses = items.map(addressOf);
    rejectRepeatedAddresses(addresses);
    await fieldsService.require(ex, tenant, fieldId);
    const stored = await repo.findAddressed(ex, tenant.accountId, fieldId, addressLists(addresses));
    const svcIds = resolveAddresses(fieldId, addresses, stored);

    const changes = items.map((item, i) => ({
      svc_id: svcIds[i]!,
      value: item.data.value ?? null,
      is_disabled: bit(item.data.is_disabled),
    }));
    const rows = await repo.updateMany(ex, tenant.accountId, fieldId, changes, nowMicros());
    const byId = new Map(rows.map((row) => [row.svc_id, row]));
    // A value deleted by a concurrent request between the lookup and the update: the batch fails whole.
    const gone = addresses.flatMap((a, i) => (byId.has(svcIds[i]!) ? [] : [{ index: i, [a.key]: a.id }]));
    if (gone.length > 0) throw notFound(fieldId, gone);
    await eventsService.emit(ex, tenant, [{ type: 'field_values.changed', fieldId, operation: 'UPDATED', svcIds }]);
    return { items: svcIds.map((id) => answer(byId.get(id)!)) };
  },

  /** Deletes in one statement; an unknown or repeated address rolls the whole batch back. */
  async delete(ex: Executor, tenant: Tenant, fieldId: string, items: Address[]): Promise<Record<string, never>> {
    const addresses = items.map(addressOf);
    rejectRepeatedAddresses(addresses);
    await fieldsService.require(ex, tenant, fieldId);
    const deleted = await repo.deleteAddressed(ex, tenant.accountId, fieldId, addressLists(addresses));
    const svcIds = resolveAddresses(fieldId, addresses, deleted);
    await eventsService.emit(ex, tenant, [{ type: 'field_values.changed', fieldId, operation: 'DELETED', svcIds }]);
    return {};
  },
};
