import type { Executor } from '../../db/database.js';
import type { Tenant } from '../auth/auth.service.js';
import type { ShownRecordRow } from './accounting.tables.js';
import { exportSelectionRepository } from './export-selection.repository.js';

export type ExportSelection =
  { kind: 'ids'; ids: readonly string[] } | { kind: 'ready'; from: number | null; to: number | null };

/**
 * What a file export (modules/exports) reads of accounting: the stored rows of the selected records, in the order
 * of the file (ERP posting date, then id). By ids: whatever the records' review state, so that the exporter names
 * each one not ready; ids the account does not have are answered in `missing`.
 */
export const exportSelectionService = {
  async rows(
    ex: Executor,
    tenant: Tenant,
    selection: ExportSelection,
  ): Promise<{ rows: ShownRecordRow[]; missing: string[] }> {
    if (selection.kind === 'ready') {
      return {
        rows: await exportSelectionRepository.ready(ex, tenant.accountId, selection.from, selection.to),
        missing: [],
      };
    }
    const unique = [...new Set(selection.ids)];
    const rows = await exportSelectionRepository.byIds(ex, tenant.accountId, unique);
    const found = new Set(rows.map((r) => r.id));
    const order = (a: ShownRecordRow, b: ShownRecordRow) =>
      Number(a.erp_posting_date) - Number(b.erp_posting_date) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    return { rows: rows.sort(order), missing: unique.filter((id) => !found.has(id)) };
  },
};
