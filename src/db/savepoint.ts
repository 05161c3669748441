import { sql } from 'kysely';
import type { Executor } from './database.js';

/**
 * Runs `work` under a savepoint of the transaction `ex`: when it throws, what it wrote is undone and the
 * transaction goes on (PostgreSQL would otherwise refuse every later statement of it); the error is thrown on.
 * Savepoints nest, so a name may be used again inside another's (the idempotency claim's, for one).
 */
export async function underSavepoint<T>(ex: Executor, name: string, work: () => Promise<T>): Promise<T> {
  const point = sql.id(name);
  await sql`savepoint ${point}`.execute(ex);
  try {
    const result = await work();
    await sql`release savepoint ${point}`.execute(ex);
    return result;
  } catch (error) {
    await sql`rollback to savepoint ${point}`.execute(ex);
    await sql`release savepoint ${point}`.execute(ex);
    throw error;
  }
}
