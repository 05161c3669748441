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

// What a file export maps records with: the double entry of each type and the precision of each currency.
export type { ShownRecordRow } from './accounting.tables.js';
export {
  BALANCING_ACCOUNT_TYPES,
  balancingAccountOf,
  LEDGER,
  type AccountingFieldValue,
  type BalancingAccountType,
  type LineItem,
  type RecordType,
  type Side,
} from './ledger.js';
export { CURRENCY_EXPONENTS, toMinor } from './money.js';
