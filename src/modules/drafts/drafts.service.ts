import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { accountingService } from '../accounting/accounting.service.js';
import type { Caller } from '../auth/auth.service.js';
import { draftsRepository as repo } from './drafts.repository.js';
import type { RecordDraftsTable } from './drafts.tables.js';
import { type DraftInput, type DraftLineDto, type RecordDraftDto } from './drafts.schemas.js';

/**
 * Drafts of a record's coding (docs/console.md, "Work is never lost"): the signed-in user's own, for a record of
 * their account. Nobody else's draft is ever read, written or deleted: every key is (account, user, record).
 */
function keyOf(caller: Caller, recordId: string) {
  if (caller.actor.type !== 'user') throw errors.internal();
  return { account_id: caller.accountId, user_id: caller.actor.id, record_id: recordId };
}

function toDto(row: RecordDraftsTable): RecordDraftDto {
  // Written by put() from a body its schema checked.
  const lines: DraftLineDto[] = JSON.parse(row.lines_json);
  return {
    accounting_record_id: row.record_id,
    version: Number(row.version),
    lines,
    updated_at: microsToIso(Number(row.updated_at)),
  };
}

/** 404 for a record the account does not have, as every record operation answers. */
async function mustExist(ex: Executor, caller: Caller, recordId: string): Promise<void> {
  await accountingService.get(ex, caller, recordId, false);
}

export const draftsService = {
  /** Deletes the drafts of the account's users (a sandbox reset, with the account's records). */
  async purgeAccount(ex: Executor, caller: Caller): Promise<void> {
    await repo.purgeAccount(ex, caller.accountId);
  },

  async get(ex: Executor, caller: Caller, recordId: string): Promise<{ draft: RecordDraftDto | null }> {
    await mustExist(ex, caller, recordId);
    const row = await repo.find(ex, keyOf(caller, recordId));
    return { draft: row ? toDto(row) : null };
  },

  async put(ex: Executor, caller: Caller, recordId: string, input: DraftInput): Promise<{ draft: RecordDraftDto }> {
    await mustExist(ex, caller, recordId);
    const row: RecordDraftsTable = {
      ...keyOf(caller, recordId),
      version: input.version,
      lines_json: JSON.stringify(input.lines),
      updated_at: nowMicros(),
    };
    await repo.upsert(ex, row);
    return { draft: toDto(row) };
  },

  /** Deleting no draft is no error: the outcome, no draft, is the same. */
  async delete(ex: Executor, caller: Caller, recordId: string): Promise<Record<string, never>> {
    await mustExist(ex, caller, recordId);
    await repo.delete(ex, keyOf(caller, recordId));
    return {};
  },
};
