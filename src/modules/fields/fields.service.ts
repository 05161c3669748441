import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { nowMicros } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { pageOf } from '../../lib/pagination.js';
import type { AuthContext, Tenant } from '../auth/auth.service.js';
import { fieldsRepository } from './fields.repository.js';
import { FieldShape, type FieldCreate, type FieldDto, type FieldUpdate } from './fields.schemas.js';
import type { FieldsTable } from './fields.tables.js';

export const FIELD_ID_PREFIX = 'extended_field';

/** A stored field as answered. */
export const fieldRowToField = (row: FieldsTable): FieldDto => FieldShape.toObject(row, undefined);

export const fieldsService = {
  async create(ex: Executor, tenant: Tenant, input: FieldCreate): Promise<FieldDto> {
    const now = nowMicros();
    const row: FieldsTable = {
      account_id: tenant.accountId,
      svc_id: newId(FIELD_ID_PREFIX),
      name: input.name,
      field_group: input.group,
      remote_id: input.remote_id ?? null,
      integration_id: null, // none exists yet: the create body refuses any other value
      is_disabled: input.is_disabled ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    await fieldsRepository.insert(ex, row);
    return fieldRowToField(row);
  },

  /** The account's field, or 404: another account's field is indistinguishable from a missing one. */
  async require(ex: Executor, tenant: Tenant, fieldId: string): Promise<FieldsTable> {
    const row = await fieldsRepository.find(ex, tenant.accountId, fieldId);
    if (!row) throw errors.notFound(`Field ${fieldId}`, { field_id: fieldId });
    return row;
  },

  /** The account's first field (in creation order) with this name, if any. */
  async findByName(ex: Executor, tenant: Tenant, name: string): Promise<FieldDto | undefined> {
    const row = await fieldsRepository.findByName(ex, tenant.accountId, name);
    return row && fieldRowToField(row);
  },

  /** The account's fields whose remote_id is among `remoteIds` (several fields may share one). */
  async findByRemoteIds(ex: Executor, tenant: Tenant, remoteIds: readonly string[]): Promise<FieldsTable[]> {
    return fieldsRepository.findByRemoteIds(ex, tenant.accountId, remoteIds);
  },

  /** The account's fields among `fieldIds` (any order; missing ones are absent). */
  async findMany(ex: Executor, tenant: Tenant, fieldIds: readonly string[]): Promise<FieldsTable[]> {
    return fieldsRepository.findMany(ex, tenant.accountId, fieldIds);
  },

  async get(ex: Executor, tenant: Tenant, fieldId: string): Promise<FieldDto> {
    return fieldRowToField(await this.require(ex, tenant, fieldId));
  },

  /** How many fields the account has. */
  async count(ex: Executor, tenant: Tenant): Promise<number> {
    return fieldsRepository.count(ex, tenant.accountId);
  },

  async list(
    ex: Executor,
    auth: AuthContext,
    query: { fieldIds?: string[]; cursor?: string; limit: number },
  ): Promise<{ items: FieldDto[]; next_cursor: string | null }> {
    const filters = { field_ids: query.fieldIds ? [...new Set(query.fieldIds)].sort() : null };
    const afterId = query.cursor ? String(openCursor(auth.cursorKey, 'fields', filters, query.cursor)[0]) : undefined;
    const rows = await fieldsRepository.list(ex, auth.accountId, {
      fieldIds: query.fieldIds,
      afterId,
      limit: query.limit,
    });
    const page = pageOf(rows, query.limit);
    const last = page.items.at(-1);
    return {
      items: page.items.map(fieldRowToField),
      next_cursor: page.hasMore && last ? sealCursor(auth.cursorKey, 'fields', filters, [last.svc_id]) : null,
    };
  },

  async update(ex: Executor, tenant: Tenant, fieldId: string, input: FieldUpdate): Promise<FieldDto> {
    const changes = {
      name: input.name ?? null,
      is_disabled: input.is_disabled === undefined || input.is_disabled === null ? null : input.is_disabled ? 1 : 0,
    };
    const row = await fieldsRepository.update(ex, tenant.accountId, fieldId, changes, nowMicros());
    if (!row) throw errors.notFound(`Field ${fieldId}`, { field_id: fieldId });
    return fieldRowToField(row);
  },

  /** Deletes every field of the account and their values (sandbox reset). */
  async deleteAll(ex: Executor, tenant: Tenant): Promise<number> {
    return fieldsRepository.deleteAll(ex, tenant.accountId);
  },

  /** Deletes the field and, through the foreign key, its values. */
  async delete(ex: Executor, tenant: Tenant, fieldId: string): Promise<Record<string, never>> {
    if (!(await fieldsRepository.delete(ex, tenant.accountId, fieldId))) {
      throw errors.notFound(`Field ${fieldId}`, { field_id: fieldId });
    }
    return {};
  },
};
