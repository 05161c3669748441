import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { Caller } from '../auth/auth.service.js';
import { STORED_MARK } from '../receipts/receipt-links.service.js';
import { accountingRepository } from './accounting.repository.js';
import { AccountingRecordShape, storedForm, type AccountingRecordDto } from './accounting.schemas.js';
import { recordEvents } from './history.js';
import { recordClock } from './record-clock.repository.js';
import { recordReceiptsRepository } from './record-receipts.repository.js';

/**
 * A record's receipts as svc changes them (docs/receipts.md): a receipt svc stores attached (named in the list by
 * its id and the mark that its answer replaces with a signed link) or removed. Each change bumps the version,
 * moves updated_at under the record clock (pollers see it) and is kept in the record's history; a removed
 * receipt stays stored, so its history can still be followed to it.
 */
interface StoredReceipt {
  id: string;
  download_uris?: string[] | null;
}

const notFound = (id: string) => errors.notFound(`Accounting record ${id}`, { accounting_record_id: id });

async function change(
  ex: Executor,
  caller: Caller,
  recordId: string,
  edit: (
    receipts: StoredReceipt[],
  ) => Promise<{ receipts: StoredReceipt[]; type: 'RECEIPT_ATTACHED' | 'RECEIPT_REMOVED' } | null>,
  receiptId: string,
): Promise<{ record: AccountingRecordDto; changed: boolean }> {
  const last = await recordClock.lock(ex, caller.accountId);
  const record = await accountingRepository.find(ex, caller.accountId, recordId);
  if (!record) throw notFound(recordId);
  const answer = (row: typeof record) =>
    AccountingRecordShape.toObject(row, { singleEntry: false, accountId: caller.accountId });
  const current: StoredReceipt[] = record.receipts_json === null ? [] : JSON.parse(record.receipts_json);
  const edited = await edit(current);
  if (edited === null) return { record: answer(record), changed: false };
  const version = Number(record.version);
  const updatedAt = await recordClock.advance(ex, caller.accountId, last, 1);
  const changed = await recordReceiptsRepository.update(ex, caller.accountId, recordId, version, {
    receiptsJson: storedForm.receipts(edited.receipts),
    updatedAt,
  });
  // Under the clock lock nothing else can have changed the record; a miss is a bug, not a race.
  if (!changed) throw errors.internal();
  if (edited.type === 'RECEIPT_ATTACHED')
    await recordReceiptsRepository.link(ex, caller.accountId, recordId, receiptId);
  else await recordReceiptsRepository.unlink(ex, caller.accountId, recordId, receiptId);
  await recordEvents(ex, caller, [
    {
      recordId,
      version: version + 1,
      occurredAt: updatedAt,
      type: edited.type,
      changes: { receipt_id: receiptId },
    },
  ]);
  const updated = await accountingRepository.find(ex, caller.accountId, recordId);
  if (!updated) throw errors.internal();
  return { record: answer(updated), changed: true };
}

export const recordReceipts = {
  /** 404 for a record the account does not have; nothing else is read or checked. */
  async mustExist(ex: Executor, caller: Caller, recordId: string): Promise<void> {
    if (!(await accountingRepository.find(ex, caller.accountId, recordId))) throw notFound(recordId);
  },

  /**
   * Attaches a receipt svc stores; already attached, the record is answered unchanged. A receipt belongs to one
   * record: 409 RECEIPT_ATTACHED_ELSEWHERE when another record lists it (checked under the clock lock, so two
   * records racing for one receipt cannot both win). 409 RECEIPT_LIMIT_REACHED when the record has `limit`
   * receipts (those ingested with their own URIs count too).
   */
  async attach(ex: Executor, caller: Caller, recordId: string, receiptId: string, limit: number) {
    return change(
      ex,
      caller,
      recordId,
      async (receipts) => {
        if (receipts.some((r) => r.id === receiptId)) return null;
        const elsewhere = (await recordReceiptsRepository.listing(ex, caller.accountId, [receiptId])).find(
          (l) => l.record_id !== recordId,
        );
        if (elsewhere) throw errors.receiptAttachedElsewhere(receiptId, recordId, elsewhere.record_id);
        if (receipts.length >= limit) throw errors.receiptLimitReached(recordId, limit);
        return { receipts: [...receipts, { id: receiptId, download_uris: [STORED_MARK] }], type: 'RECEIPT_ATTACHED' };
      },
      receiptId,
    );
  },

  /** Of `ids`, those a record of the account lists already, each with that record's id. */
  async listedBy(ex: Executor, caller: Caller, ids: readonly string[]): Promise<Map<string, string>> {
    const listed = new Map<string, string>();
    // In slices: a statement's parameters are bounded (SQLite's 32766), a batch's ids are not.
    for (let i = 0; i < ids.length; i += 500) {
      for (const l of await recordReceiptsRepository.listing(ex, caller.accountId, ids.slice(i, i + 500))) {
        if (!listed.has(l.receipt_id)) listed.set(l.receipt_id, l.record_id);
      }
    }
    return listed;
  },

  /** Removes a receipt from the record's list (404 when the record does not list it); the receipt stays stored. */
  async remove(ex: Executor, caller: Caller, recordId: string, receiptId: string) {
    return change(
      ex,
      caller,
      recordId,
      async (receipts) => {
        if (!receipts.some((r) => r.id === receiptId)) {
          throw errors.notFound(`Receipt ${receiptId} of accounting record ${recordId}`, {
            accounting_record_id: recordId,
            receipt_id: receiptId,
          });
        }
        return { receipts: receipts.filter((r) => r.id !== receiptId), type: 'RECEIPT_REMOVED' };
      },
      receiptId,
    );
  },
};
