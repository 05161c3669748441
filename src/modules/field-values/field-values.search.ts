import type { Executor } from '../../db/database.js';
import type { Tenant } from '../auth/auth.service.js';
import { fieldsService } from '../fields/fields.service.js';
import { FieldValueShape, type FieldValueDto } from './field-values.schemas.js';
import { valueSearchRepository as repo } from './field-values.search.repository.js';

/**
 * Search over a field's values for the coding pickers: values that start with the text first (in order of their
 * lower-cased value), then those that contain it in value or remote_id (in creation order), case-insensitive,
 * disabled values included only when asked (they cannot code a line).
 */
export const valueSearchService = {
  async searchValues(
    ex: Executor,
    tenant: Tenant,
    fieldId: string,
    query: { text: string; limit: number; includeDisabled: boolean },
  ): Promise<{ items: FieldValueDto[] }> {
    await fieldsService.require(ex, tenant, fieldId);
    const { text, limit, includeDisabled } = query;
    const rows = await repo.search(ex, tenant.accountId, fieldId, text, 'prefix', limit, includeDisabled);
    if (rows.length < limit) {
      // The values containing the text include the fewer than `limit` that start with it: `limit` of them hold
      // every one still needed.
      const seen = new Set(rows.map((r) => r.svc_id));
      const containing = await repo.search(ex, tenant.accountId, fieldId, text, 'contains', limit, includeDisabled);
      for (const row of containing) {
        if (rows.length >= limit) break;
        if (!seen.has(row.svc_id)) rows.push(row);
      }
    }
    return { items: rows.map((row) => FieldValueShape.toObject(row, { fieldId })) };
  },
};
