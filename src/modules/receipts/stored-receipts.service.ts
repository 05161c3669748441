import type { Executor } from '../../db/database.js';
import { receiptsRepository } from './receipts.repository.js';

/** What another module may ask of the receipts an account stores (accounting's ingestion names them by id). */
export const storedReceiptsService = {
  /** Which of `ids` the account stores (another account's receipt is not among them). */
  async existing(ex: Executor, accountId: string, ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    // In slices: a statement's parameters are bounded (SQLite's 32766), a batch's ids are not.
    for (let i = 0; i < ids.length; i += 500) {
      for (const id of await receiptsRepository.existing(ex, accountId, ids.slice(i, i + 500))) found.add(id);
    }
    return found;
  },
};
