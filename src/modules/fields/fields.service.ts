import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { openCursor, sealCursor } from '../../http/cursor.js';
import { pageOf } from '../../http/pagination.js';
import type { AuthContext } from '../auth/auth.service.js';
import { fieldsRepository } from './fields.repository.js';
import type { FieldCreate, FieldDto, FieldUpdate } from './fields.schemas.js';
import type { FieldsTable } from './fields.tables.js';

export const FIELD_ID_PREFIX = 'extended_field';

export function fieldRowToField(row: FieldsTable): FieldDto {
  return {
    svc_id: row.svc_id,
    name: row.name,
    group: row.field_group,
    remote_id: row.remote_id,
    is_disabled: row.is_disabled === 1,
    updated_at: microsToIso(row.updated_at),
  };
}

export const fieldsService = {
  async create(db: Executor, auth: AuthContext, input: FieldCreate): Promise<FieldDto> {
    const now = nowMicros();
    const row: FieldsTable = {
      account_id: auth.accountId,
      svc_id: newId(FIELD_ID_PREFIX),
      name: input.name,
      field_group: input.group,
      remote_id: input.remote_id ?? null,
      integration_id: input.integration_id ?? null,
      is_disabled: input.is_disabled ? 1 : 0,
      created_at: now,
      updated_at: now,
    };
    await fieldsRepository.insert(db, row);
    return fieldRowToField(row);
  },

  /** The account's field, or 404: another account's field is indistinguishable from a missing one. */
  async require(db: Executor, auth: AuthContext, fieldId: string): Promise<FieldsTable> {
    const row = await fieldsRepository.find(db, auth.accountId, fieldId);
    if (!row) throw errors.notFound(`Field ${fieldId}`, { field_id: fieldId });
    return row;
  },

  async get(db: Executor, auth: AuthContext, fieldId: string): Promise<FieldDto> {
    return fieldRowToField(await this.require(db, auth, fieldId));
  },

  async list(
    db: Executor,
    auth: AuthContext,
    query: { fieldIds?: string[]; cursor?: string; limit: number },
  ): Promise<{ items: FieldDto[]; next_cursor: string | null }> {
    const filters = { field_ids: query.fieldIds ? [...new Set(query.fieldIds)].sort() : null };
    const afterId = query.cursor ? String(openCursor(auth.cursorKey, 'fields', filters, query.cursor)[0]) : undefined;
    const rows = await fieldsRepository.list(db, auth.accountId, {
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

  async update(db: Executor, auth: AuthContext, fieldId: string, input: FieldUpdate): Promise<FieldDto> {
    const changes = {
      name: input.name ?? null,
      is_disabled: input.is_disabled === undefined || input.is_disabled === null ? null : input.is_disabled ? 1 : 0,
    };
    const row = await fieldsRepository.update(db, auth.accountId, fieldId, changes, nowMicros());
    if (!row) throw errors.notFound(`Field ${fieldId}`, { field_id: fieldId });
    return fieldRowToField(row);
  },

  /** Deletes the field and, through the foreign key, its values. */
  async delete(db: Executor, auth: AuthContext, fieldId: string): Promise<Record<string, never>> {
    if (!(await fieldsRepository.delete(db, auth.accountId, fieldId))) {
      throw errors.notFound(`Field ${fieldId}`, { field_id: fieldId });
    }
    return {};
  },
};
