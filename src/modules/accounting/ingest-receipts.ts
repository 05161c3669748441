import type { Executor } from '../../db/database.js';
import { errors, type ValidationProblem } from '../../errors.js';
import type { Caller } from '../auth/auth.service.js';
import { storedReceiptsService } from '../receipts/stored-receipts.service.js';
import type { AccountingRecordDto, IngestItemInput } from './accounting.schemas.js';
import { recordReceipts } from './record-receipts.js';

/**
 * Receipts uploaded to svc (POST /internal/v1/receipts) that ingestion names by id (an item's `receipt_ids`,
 * docs/receipts.md). A receipt named so belongs to that one record: it must be the account's, listed by no record
 * yet, and named once in the batch. Any item that fails refuses the whole batch (400 at each pointer), before
 * anything is written.
 */
export async function checkNamedReceipts(
  ex: Executor,
  caller: Caller,
  items: readonly IngestItemInput[],
  perRecord: number,
): Promise<void> {
  const named = items.flatMap((item, i) =>
    (item.receipt_ids ?? []).map((id, j) => ({ id, path: `/items/${i}/receipt_ids/${j}` })),
  );
  if (named.length === 0) return;
  const problems: ValidationProblem[] = [];
  items.forEach((item, i) => {
    const count = (item.receipts?.length ?? 0) + (item.receipt_ids?.length ?? 0);
    if (item.receipt_ids && count > perRecord) {
      problems.push({
        path: `/items/${i}/receipt_ids`,
        message: `gives the record ${count} receipts with its receipts: at most ${perRecord} a record (RECEIPTS_PER_RECORD)`,
      });
    }
  });
  const ids = [...new Set(named.map((n) => n.id))];
  const stored = await storedReceiptsService.existing(ex, caller.accountId, ids);
  const listed = await recordReceipts.listedBy(
    ex,
    caller,
    ids.filter((id) => stored.has(id)),
  );
  const first = new Map<string, string>();
  for (const { id, path } of named) {
    if (!stored.has(id)) {
      problems.push({
        path,
        message: `names receipt ${id}, which the account does not store (upload it first: POST /internal/v1/receipts)`,
      });
    } else if (listed.has(id)) {
      problems.push({
        path,
        message: `names receipt ${id}, attached to record ${listed.get(id)!} already: a receipt belongs to one record`,
      });
    } else if (first.has(id)) {
      problems.push({
        path,
        message: `names receipt ${id}, named at ${first.get(id)!} already: a receipt belongs to one record`,
      });
    } else {
      first.set(id, path);
    }
  }
  if (problems.length > 0) throw errors.invalidRequest(problems);
}

/**
 * After the records are written, in the same transaction: each named receipt attached as an upload to the record
 * attaches it (the record's receipts, a new version, a RECEIPT_ATTACHED event and its webhook). Answers each
 * record as it stands after its last attachment, by its index in the batch.
 */
export async function attachNamedReceipts(
  ex: Executor,
  caller: Caller,
  items: readonly IngestItemInput[],
  recordIds: readonly string[],
  perRecord: number,
): Promise<Map<number, AccountingRecordDto>> {
  const answers = new Map<number, AccountingRecordDto>();
  for (const [i, item] of items.entries()) {
    for (const receiptId of item.receipt_ids ?? []) {
      const { record } = await recordReceipts.attach(ex, caller, recordIds[i]!, receiptId, perRecord);
      answers.set(i, record);
    }
  }
  return answers;
}
