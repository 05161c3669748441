import type { Db, Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { pageOf } from '../../lib/pagination.js';
import { prewrittenPage, type PrewrittenJson } from '../../lib/prewritten.js';
import { isoToMicros } from '../../lib/clock.js';
import type { AuthContext, Caller, Tenant } from '../auth/auth.service.js';
import { accountingRepository, CountDeltas, type RecordFilter } from './accounting.repository.js';
import { exportResultsRepository } from './export-results.repository.js';
import {
  AccountingRecordShape,
  type AccountingRecordDto,
  type ExportResultsInput,
  type RecordQueryInput,
} from './accounting.schemas.js';
import type { LastExportResult } from './accounting.tables.js';
import type { SourceType } from './ledger.js';
import { AFTER_EXPORT, EXPORTABLE, type ReviewStatus } from './lifecycle.js';
import { exportReported, recordEvents } from './history.js';
import { recordClock } from './record-clock.repository.js';
import { reviewService } from './review.service.js';
import { recordReceipts } from './record-receipts.js';

/** The kinds of records and their money, for the modules that match records (coding rules). */
export { RECORD_TYPES, SOURCE_TYPES, sourceTypeOf, type RecordType, type SourceType } from './ledger.js';
export { fromMinor, toMinor, type Money } from './money.js';

const notFound = (id: string) => errors.notFound(`Accounting record ${id}`, { accounting_record_id: id });

function duplicatesOf(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const id of ids) (seen.has(id) ? dup : seen).add(id);
  return [...dup];
}

export const accountingService = {
  /** A record's receipts, as the receipts module changes them (record-receipts.ts). */
  receipts: recordReceipts,

  /** Deletes every record of the account (sandbox reset); the record clock keeps going. */
  async purgeAccount(ex: Executor, tenant: Tenant): Promise<void> {
    await accountingRepository.purgeAccount(ex, tenant.accountId);
  },

  /** How many records the account has (the counts kept with every change). */
  async recordCount(ex: Executor, tenant: Tenant): Promise<number> {
    return accountingRepository.count(ex, tenant.accountId, {});
  },

  async get(ex: Executor, tenant: Tenant, id: string, singleEntry: boolean): Promise<AccountingRecordDto> {
    const row = await accountingRepository.find(ex, tenant.accountId, id);
    if (!row) throw notFound(id);
    return AccountingRecordShape.toObject(row, { singleEntry, accountId: tenant.accountId });
  },

  /** A page of records, pre-written (lib/prewritten.ts): its records written by their shape. */
  async query(db: Db, auth: AuthContext, q: RecordQueryInput): Promise<PrewrittenJson> {
    if (q.review_status && q.source_type === 'BILL') {
      throw errors.invalidField('/query/review_status', 'is supported only with source_type CARD or REIMBURSEMENT');
    }
    const bound = (text: string | undefined) => (text === undefined ? undefined : isoToMicros(text)!);
    const sourceTypes: SourceType[] | undefined = q.source_type
      ? [q.source_type]
      : q.review_status
        ? ['CARD', 'REIMBURSEMENT']
        : undefined;
    const filter: RecordFilter = {
      ids: q.ids ? [...new Set(q.ids)].sort() : undefined,
      reviewStatus: q.review_status,
      sourceTypes,
      gt: bound(q['updated_at[gt]']),
      gte: bound(q['updated_at[gte]']),
      lt: bound(q['updated_at[lt]']),
      lte: bound(q['updated_at[lte]']),
    };
    const binding = { ...filter, ids: filter.ids ?? null, sourceTypes: sourceTypes ?? null };
    let position: { updatedAt: number; id: string } | null = null;
    if (q.cursor) {
      const [updatedAt, id] = openCursor(auth.cursorKey, 'accounting_records', binding, q.cursor);
      if (typeof updatedAt !== 'number' || typeof id !== 'string') throw errors.invalidCursor();
      position = { updatedAt, id };
    }
    const limit = q.limit ?? 100;
    // Page and count from one snapshot, so that total_count agrees with the page.
    const [rows, total] = await db.read(
      async (ex) =>
        [
          await accountingRepository.page(ex, auth.accountId, filter, position, limit),
          await accountingRepository.count(ex, auth.accountId, filter),
        ] as const,
    );
    const page = pageOf(rows, limit);
    const last = page.items.at(-1);
    const nextCursor =
      page.hasMore && last
        ? sealCursor(auth.cursorKey, 'accounting_records', binding, [Number(last.updated_at), last.id])
        : null;
    const ctx = { singleEntry: q.single_entry ?? false, accountId: auth.accountId };
    const items = page.items.map((row) => AccountingRecordShape.toJson(row, ctx)).join(',');
    return prewrittenPage(`[${items}]`, { has_next_page: page.hasMore, next_cursor: nextCursor, total_count: total });
  },

  /** A review move of one record (reviewService.moveOne: a bulk move of one); answers the record as it is now. */
  async moveReviewStatus(
    ex: Executor,
    tenant: Caller,
    id: string,
    input: { review_status: ReviewStatus; version?: number },
  ): Promise<AccountingRecordDto> {
    await reviewService.moveOne(ex, tenant, id, input);
    const updated = await accountingRepository.find(ex, tenant.accountId, id);
    if (!updated) throw errors.internal();
    return AccountingRecordShape.toObject(updated, { singleEntry: false, accountId: tenant.accountId });
  },

  /** Export results, all or none: success → EXPORTED, failure → REVIEW, each kept as last_export_result. */
  async reportExportResults(
    ex: Executor,
    tenant: Caller,
    input: ExportResultsInput,
  ): Promise<{ updated_accounting_record_ids: string[] }> {
    const ids = input.results.map((r) => r.accounting_record_id);
    const duplicates = duplicatesOf(ids);
    if (duplicates.length > 0) {
      throw errors.duplicateExportResults(duplicates);
    }
    const last = await recordClock.lock(ex, tenant.accountId);
    const states = new Map((await accountingRepository.statesOf(ex, tenant.accountId, ids)).map((s) => [s.id, s]));
    const missing = ids.filter((id) => !states.has(id));
    if (missing.length > 0) {
      throw errors.exportedRecordsNotFound(missing);
    }
    const notReady = ids.filter((id) => states.get(id)!.review_status !== EXPORTABLE);
    if (notReady.length > 0) {
      throw errors.notReadyForExport(EXPORTABLE, notReady);
    }
    const first = await recordClock.advance(ex, tenant.accountId, last, ids.length);
    const updates = input.results.map((result, i) => {
      const reported: LastExportResult =
        'success' in result
          ? {
              status: 'SUCCESS',
              reference_id: result.success.reference_id ?? null,
              deep_link_url: result.success.deep_link_url ?? null,
              error_message: null,
              reported_at: first + i,
            }
          : {
              status: 'FAILURE',
              reference_id: null,
              deep_link_url: null,
              error_message: result.failure.error_message,
              reported_at: first + i,
            };
      return {
        id: result.accounting_record_id,
        reviewStatus: AFTER_EXPORT[reported.status],
        updatedAt: first + i,
        lastExportJson: JSON.stringify(reported),
        reported,
      };
    });
    const changed = await exportResultsRepository.applyExportResults(ex, tenant.accountId, updates);
    // Under the clock lock nothing else can have moved these records; a shortfall is a bug, not a race.
    if (changed !== ids.length) throw errors.internal();
    const deltas = new CountDeltas();
    for (const update of updates) {
      const { source_type } = states.get(update.id)!;
      deltas.add(source_type, EXPORTABLE, -1).add(source_type, update.reviewStatus, 1);
    }
    await accountingRepository.adjustCounts(ex, tenant.accountId, deltas);
    await recordEvents(
      ex,
      tenant,
      updates.map(({ id, reviewStatus, updatedAt, reported }) =>
        exportReported(
          { recordId: id, version: states.get(id)!.version + 1, occurredAt: updatedAt },
          reviewStatus,
          reported,
        ),
      ),
    );
    return { updated_accounting_record_ids: ids };
  },
};
