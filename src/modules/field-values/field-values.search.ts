import type { Executor } from '../../db/database.js';
import type { Tenant } from '../auth/auth.service.js';
import { fieldsService } from '../fields/fields.service.js';
import { FieldValueShape, type FieldValueDto } from './field-values.schemas.js';
import { valueSearchRepository as repo } from './field-values.search.repository.js';

/**
 * Search over a field's values for the coding pickers: values that start with the text first, then those that
 * contain it (in value or remote_id), each group in creation order, case-insensitive, disabled values included
 * only when asked (they cannot code a line).
 */
export const valueSearchService = {
  async searchValues(
    ex: Executor,
    tenant: Tenant,
    fieldId: string,
    query: { text: string; limit: number; includeDisabled: boolean },
  ): Promise<{ items: FieldValueDto[] }> {
    await fieldsService.require(ex, tenant, fieldId);
    const usable = (row: { is_disabled: number }) => query.includeDisabled || row.is_disabled === 0;
    // Disabled values are filtered here, so each query reads a little more than the limit.
    const read = query.limit * 2 + 10;
    const starting = (await repo.search(ex, tenant.accountId, fieldId, query.text, 'prefix', read)).filter(usable);
    const seen = new Set(starting.map((r) => r.svc_id));
    const rows = starting.slice(0, query.limit);
    if (rows.length < query.limit) {
      const containing = await repo.search(ex, tenant.accountId, fieldId, query.text, 'contains', read);
      for (const row of containing) {
        if (rows.length >= query.limit) break;
        if (!seen.has(row.svc_id) && usable(row)) rows.push(row);
      }
    }
    return { items: rows.map((row) => FieldValueShape.toObject(row, { fieldId })) };
  },
};
