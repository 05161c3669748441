import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { ofDisabledEndpoint } from './deliveries.repository.js';

/** The dispatching processes' heartbeats, and the takeover of a dead one's claims (webhooks.liveness.ts). */
export const dispatchersRepository = {
  async join(ex: Executor, dispatcherId: string, now: number): Promise<void> {
    await ex
      .insertInto('webhook_dispatchers')
      .values({ dispatcher_id: dispatcherId, started_at: now, beat_at: now, beats: 0 })
      .execute();
  },

  /** One beat; false when the row is gone (another process judged this one dead and took its claims over). */
  async beat(ex: Executor, dispatcherId: string, now: number): Promise<boolean> {
    const result = await ex
      .updateTable('webhook_dispatchers')
      .set({ beat_at: now, beats: sql<number>`beats + 1` })
      .where('dispatcher_id', '=', dispatcherId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async all(ex: Executor): Promise<{ dispatcher_id: string; beats: number }[]> {
    const rows = await ex.selectFrom('webhook_dispatchers').select(['dispatcher_id', 'beats']).execute();
    return rows.map((r) => ({ dispatcher_id: r.dispatcher_id, beats: Number(r.beats) }));
  },

  /**
   * Takes a dead dispatcher's claims over: its row goes, if it has not beaten since `beats` was read (so a beat that
   * commits first keeps them its own), and its claimed deliveries are due at `now` (paused, of a disabled
   * endpoint), their claims void (an outcome written later under such a claim changes nothing:
   * attemptsRepository.settle). Answers how many were released, or null when the dispatcher beat meanwhile (or
   * another process took them over first).
   */
  async takeOver(ex: Executor, dispatcherId: string, beats: number, now: number): Promise<number | null> {
    const gone = await ex
      .deleteFrom('webhook_dispatchers')
      .where('dispatcher_id', '=', dispatcherId)
      .where('beats', '=', beats)
      .executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) return null;
    const claimsOf = (status: 'PAUSED' | 'PENDING') =>
      ex
        .updateTable('webhook_deliveries')
        .set({ status, next_attempt_at: now, lease_token: null, claimed_by: null, updated_at: now })
        .where('claimed_by', '=', dispatcherId)
        .where('status', '=', 'PENDING')
        .where('lease_token', 'is not', null);
    // Those of an endpoint disabled meanwhile wait for it, as its other deliveries do (pauseWaiting left them to
    // their attempts).
    const paused = await claimsOf('PAUSED').where(ofDisabledEndpoint).executeTakeFirst();
    const released = await claimsOf('PENDING').executeTakeFirst();
    return Number(paused.numUpdatedRows) + Number(released.numUpdatedRows);
  },

  async leave(ex: Executor, dispatcherId: string): Promise<void> {
    await ex.deleteFrom('webhook_dispatchers').where('dispatcher_id', '=', dispatcherId).execute();
  },
};
