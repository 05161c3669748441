import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../../db/database.js';
import { dispatchersRepository as repo } from './dispatchers.repository.js';

/**
 * How long a dispatcher's heartbeat may stand still before the others take its claims over (WEBHOOK_TAKEOVER_SECONDS):
 * a few beats, so that one slow beat is not a death, and seconds rather than the claims' 60 s lease.
 */
export const TAKEOVER_AFTER = 5_000_000;
/** Beats per takeover window: a live dispatcher has beaten several times before anyone may judge it dead. */
const BEATS_PER_WINDOW = 5;

export interface Liveness {
  /** This process's dispatcher id: the `claimed_by` of its claims. */
  readonly id: string;
  /**
   * Once per beat interval (by the dispatcher's clock): beats if `busy` (it holds claims, or is about to claim),
   * then watches the others and takes over the claims of any whose beats have not moved for `takeoverAfter`. Ticks
   * do not overlap (a tick asked for meanwhile waits for the one under way, then runs if still due).
   */
  tick(busy: boolean): Promise<void>;
  /** Ticks on a timer of its own too (the running dispatcher), so that a long step never makes it look dead. */
  start(busy: () => boolean): void;
  /** On a clean stop, its claims settled: the timer ends and the row goes, so nobody waits to judge it. */
  leave(): Promise<void>;
}

export interface LivenessOptions {
  db: Db;
  now: () => number;
  /** microseconds (default TAKEOVER_AFTER) */
  takeoverAfter?: number;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/**
 * A dispatcher's heartbeat, and its watch over the others' (docs/webhooks.md, "Many processes"). A process beats in
 * its row of webhook_dispatchers before it claims and as long as it holds claims; each process watches the others'
 * `beats` and judges one dead when they have not moved for `takeoverAfter` by its own clock (never by comparing the
 * clocks of two machines, which may differ). The dead one's claims are taken over in one transaction with the
 * removal of its row, and only if it has not beaten meanwhile (a claim is always made after a beat, so a process
 * judged dead while idle loses nothing: it joins again before it claims). An idle dispatcher only reads: no write
 * lock a second (SQLite has one writer), but for one beat within a second of becoming idle, which makes durable the
 * claims and outcomes it committed without waiting for the disk (piece `lazy-commit`). A process that restarts is a
 * new dispatcher: its old self's claims are taken over by whoever watches, itself included, `takeoverAfter` after it
 * is first seen standing still.
 *
 * An attempt genuinely in flight on a live process is never taken over: that process beats while it waits. If a
 * process stalls past the window (a frozen VM), its claims go to another, which may send them again (at least
 * once); its late outcomes are written nowhere (they are under a void claim), and it joins again as new.
 */
export function liveness(options: LivenessOptions): Liveness {
  const { db, now, log } = options;
  const takeoverAfter = options.takeoverAfter ?? TAKEOVER_AFTER;
  const beatEvery = Math.floor(takeoverAfter / BEATS_PER_WINDOW);
  // A tenth of slack: a timer that fires a little early still beats.
  const due = (last: number, at: number) => at - last >= beatEvery - beatEvery / 10;
  const id = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  /** Each other dispatcher's beats as last seen, and since when (this process's clock) they have stood still. */
  const seen = new Map<string, { beats: number; since: number }>();
  let joined = false;
  /** Whether the last beat was of a process holding claims (a row gone since then means they were taken over). */
  let heldClaims = false;
  /**
   * Whether it has been busy (claiming, or holding claims) since its last beat: its claims' and outcomes' commits
   * since then may not be on the disk yet (piece `lazy-commit`), and one more beat, durable, makes them so.
   */
  let busySinceBeat = false;
  let lastBeat = -Infinity;
  let lastWatch = -Infinity;
  let ticking: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;

  async function beat(at: number, busy: boolean): Promise<void> {
    if (joined && (await db.write((ex) => repo.beat(ex, id, at)))) {
      heldClaims = busy;
      busySinceBeat = busy;
      return;
    }
    if (joined && heldClaims) {
      log?.warn(
        { dispatcher_id: id },
        'webhook dispatcher was judged dead (no beat in time); its claims were taken over',
      );
    }
    // Idle, it joins again only before its next claim, as a process judged dead while idle does (the takeover that
    // removed its row was a durable commit of the same database: what it committed lazily before is durable too).
    if (!busy) {
      joined = false;
      heldClaims = false;
      busySinceBeat = false;
      return;
    }
    await db.write((ex) => repo.join(ex, id, at));
    joined = true;
    heldClaims = busy;
    busySinceBeat = busy;
  }

  async function watch(at: number): Promise<void> {
    const rows = await repo.all(db.direct);
    const present = new Set(rows.map((r) => r.dispatcher_id));
    for (const key of seen.keys()) if (!present.has(key)) seen.delete(key);
    if (!present.has(id)) joined = false;
    for (const row of rows) {
      if (row.dispatcher_id === id) continue;
      const last = seen.get(row.dispatcher_id);
      if (!last || last.beats !== row.beats) {
        seen.set(row.dispatcher_id, { beats: row.beats, since: at });
        continue;
      }
      if (at - last.since < takeoverAfter) continue;
      const released = await db.write((ex) => repo.takeOver(ex, row.dispatcher_id, row.beats, now()));
      seen.delete(row.dispatcher_id);
      if (released !== null) {
        log?.info(
          { dispatcher_id: row.dispatcher_id, released, silent_ms: Math.round((at - last.since) / 1000) },
          'webhook dispatcher found dead: its claimed deliveries are due again',
        );
      }
    }
  }

  async function tickNow(busy: boolean): Promise<void> {
    const at = now();
    if (busy) busySinceBeat = true;
    // Busy: a beat each `beatEvery`. Idle again after being busy since its last beat: one beat more, within
    // `beatEvery` of that one. It is durable, so it makes durable the claims' and outcomes' commits that did not wait
    // for the disk (piece `lazy-commit`: SQLite syncs its WAL in order): a power cut loses at most about `beatEvery`
    // of them.
    if (busy ? !joined || due(lastBeat, at) : joined && busySinceBeat && due(lastBeat, at)) {
      await beat(at, busy);
      lastBeat = at;
    }
    if (due(lastWatch, at)) {
      lastWatch = at;
      await watch(at);
    }
  }

  async function tick(busy: boolean): Promise<void> {
    while (ticking) await ticking.catch(() => {});
    ticking = tickNow(busy).finally(() => (ticking = null));
    return ticking;
  }

  return {
    id,
    tick,
    start(busy) {
      timer ??= setInterval(
        () => void tick(busy()).catch((error: unknown) => log?.warn({ err: error }, 'webhook heartbeat failed')),
        Math.max(1, Math.floor(beatEvery / 1000)),
      );
      timer.unref();
    },
    async leave() {
      clearInterval(timer);
      timer = undefined;
      while (ticking) await ticking.catch(() => {});
      if (joined) await db.write((ex) => repo.leave(ex, id));
      joined = false;
    },
  };
}
