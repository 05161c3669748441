import type { Executor } from '../../db/database.js';
import { usersRepository } from './users.repository.js';

/** The names people are shown by where they acted (a record's history): a user's email, the name they sign in with. */
export const userNamesService = {
  /** The account's users among `userIds`, by id (ids of no user of the account are left out). */
  async namesOf(ex: Executor, accountId: string, userIds: readonly string[]): Promise<Map<string, string>> {
    if (userIds.length === 0) return new Map();
    const rows = await usersRepository.emailsOf(ex, accountId, [...new Set(userIds)]);
    return new Map(rows.map((row) => [row.user_id, row.email]));
  },
};
