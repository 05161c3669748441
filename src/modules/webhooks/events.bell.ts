import { sql } from 'kysely';
import type { Db, Executor } from '../../db/database.js';

/**
 * The channel on which PostgreSQL tells every node that account events were committed: the transaction that writes
 * them sends `pg_notify` (with its commit, never for a rollback; events.repository.ts `reserve`), and each node's
 * webhook dispatcher listens (server.ts), so that an event written through any node is fanned out and delivered at
 * once rather than at the dispatcher's next idle look.
 */
export const EVENTS_CHANNEL = 'svc_events';

const ringers = new Set<() => void>();

/**
 * This process's bell for committed account events (both dialects; SQLite has no notification across processes, so
 * another process's events are found at the dispatcher's next idle look, within a second). A ring wakes this
 * process's dispatcher; it reads what is there, so a ring too many costs one look and a ring lost one idle wait.
 */
export const eventsBell = {
  ring(): void {
    // Runs after a commit, inside the write's answer: a listener that fails must not fail the write it follows.
    for (const then of ringers) {
      try {
        then();
      } catch {
        // a wake is a hint: the dispatcher's next look finds the work
      }
    }
  },
  /** `then` runs at every ring, until the returned function is called. */
  listen(then: () => void): () => void {
    ringers.add(then);
    return () => void ringers.delete(then);
  },
};

/** Rings the bell once `ex`'s transaction has committed (outside a write transaction, now: its write has). */
export function ringOnCommit(ex: Executor): void {
  if (ex.afterCommit) ex.afterCommit(eventsBell.ring);
  else eventsBell.ring();
}

/**
 * Tells every dispatcher, once `ex`'s transaction commits, that deliveries may be due now that were not (a
 * redelivery, an endpoint enabled): PostgreSQL's notification for the other nodes, this process's bell for its own.
 * (Events tell it as they are written: events.service.ts.)
 */
export async function announceDeliveries(ex: Executor): Promise<void> {
  if (ex.dialect === 'postgres') await sql`select pg_notify(${EVENTS_CHANNEL}, '')`.execute(ex);
  ringOnCommit(ex);
}

/**
 * Wakes `dispatcher` whenever events are committed or deliveries made due: by this process at once (the bell), and,
 * on PostgreSQL, by any node (a LISTEN on EVENTS_CHANNEL of `db`'s). Another SQLite process's are found at the
 * dispatcher's next idle look.
 */
export function wakeOnEvents(dispatcher: { wake(): void }, db: Db): { close(): Promise<void> } {
  const unlisten = eventsBell.listen(() => dispatcher.wake());
  const listener = db.listen?.(EVENTS_CHANNEL, () => dispatcher.wake());
  return {
    async close() {
      unlisten();
      await listener?.close();
    },
  };
}
