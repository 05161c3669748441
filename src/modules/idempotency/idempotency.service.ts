import { createHash } from 'node:crypto';
import type { Db, Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { nowMicros } from '../../lib/clock.js';
import { idempotencyRepository as repo, type IdempotencyKeyIds } from './idempotency.repository.js';

/**
 * Idempotency-Key (Stripe's semantics, status codes of the IETF draft), the rules; src/http/idempotency.ts
 * calls them from the request's hooks and from `writeTransaction`.
 *
 * 1. After authentication and validation the stored answer under the key is looked up: the same request's is
 *    replayed, another request's → 422. A request of this process running under the key → 409 at once
 *    (`KeysInFlight`).
 * 2. The claim lives in the write transaction that does the work (`runClaimed`): on PostgreSQL an advisory lock
 *    of that transaction, taken without waiting (held elsewhere → 409); on SQLite the write lock itself. The
 *    answer is stored in that same transaction, business errors (4xx) included after their work is undone; any
 *    other failure rolls everything back and stores nothing.
 * Nothing of a claim is written before the work: a commit, a rollback or the death of the process (its
 * connection) releases it, so a retry after a crash runs at once, and a request holds its key as long as it runs.
 */
export const RETENTION_MICROS = 24 * 3600 * 1_000_000;

export type { IdempotencyKeyIds };

/** An answer as sent, and stored for replays. */
export interface Answer {
  status: number;
  body: string;
}

/**
 * What a claimed piece of work led to; `replayed`: nothing ran, the key holds this request's answer already (an
 * earlier run of it committed, though its commit was reported failed).
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown } | { ok: 'replayed'; answer: Answer };

export function requestHash(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

const keyOf = (ids: IdempotencyKeyIds) => `${ids.account_id}\0${ids.client_id}\0${ids.idempotency_key}`;

/**
 * The keys that requests of this process are running under, from their look-up to their answer, with the hash
 * of each request: a second request under one of them is refused at once (409, or 422 for another request),
 * without a trip to the database (on SQLite it would otherwise wait for the write lock).
 */
export class KeysInFlight {
  readonly #running = new Map<string, { hash: string }>();

  /** Refuses the request when another request of this process runs under its key. */
  check(ids: IdempotencyKeyIds, hash: string): void {
    const running = this.#running.get(keyOf(ids));
    if (running) throw running.hash === hash ? errors.idempotencyKeyInUse() : errors.idempotencyKeyReused();
  }

  /** Enters the key (refused as `check` does); returns how to leave it (idempotent). */
  enter(ids: IdempotencyKeyIds, hash: string): () => void {
    this.check(ids, hash);
    const key = keyOf(ids);
    const entry = { hash };
    this.#running.set(key, entry);
    return () => {
      if (this.#running.get(key) === entry) this.#running.delete(key);
    };
  }
}

/**
 * The key was answered since this request looked it up. Another request's answer stands: 422, as the look-up would
 * have said (CONVENTIONS.md: same key, different request). This request's own answer is replayed when this is its
 * work run again (its earlier run's commit was reported failed, and was done all the same: a connection lost during
 * COMMIT, a group of grouped writes run again work by work): a request whose answer is stored is never told the key
 * is in use. Otherwise (another request holds the key, or a duplicate of this one answered meanwhile): 409, retry.
 */
async function answeredAlready(
  ex: Executor,
  ids: IdempotencyKeyIds,
  hash: string,
  again: boolean,
): Promise<Outcome<never>> {
  const row = await repo.find(ex, ids);
  if (row && row.state === 'DONE' && row.expires_at > nowMicros()) {
    if (row.request_hash !== hash) throw errors.idempotencyKeyReused();
    if (again)
      return { ok: 'replayed', answer: { status: row.response_status ?? 200, body: row.response_body ?? '{}' } };
  }
  throw errors.idempotencyKeyInUse();
}

export const idempotencyService = {
  /**
   * The answer stored under the key for this request (hash), to replay; null when the key is free. 422 when it
   * answered another request.
   */
  async storedAnswer(db: Db, ids: IdempotencyKeyIds, hash: string): Promise<Answer | null> {
    const row = await repo.find(db.direct, ids);
    if (!row || row.expires_at <= nowMicros()) return null;
    if (row.request_hash !== hash) throw errors.idempotencyKeyReused();
    // IN_FLIGHT: the claim row of an earlier version (claims are no longer written). Its request may still be
    // running there; the answer this request stores replaces the row, and that version's guarded write then fails.
    if (row.state !== 'DONE') return null;
    return { status: row.response_status ?? 200, body: row.response_body ?? '{}' };
  },

  /**
   * Runs `work` in the write transaction `ex` under the key's claim and stores its answer in that transaction.
   * 409 when another request holds the key; when an answer was stored under it since the look-up, 422 if it is
   * another request's, this same request's answer to replay when the work runs `again` (nothing of the work is
   * kept), 409 otherwise (`answeredAlready`). A business error (`answers.error` gives its answer) undoes the work and stores the answer; a failure without one (5xx) is
   * thrown, so the transaction rolls back with nothing stored and the key free.
   */
  async runClaimed<T>(
    ex: Executor,
    ids: IdempotencyKeyIds,
    hash: string,
    work: (ex: Executor) => Promise<T>,
    answers: { value(value: T): Answer; error(error: unknown): Answer | null },
    again = false,
  ): Promise<Outcome<T>> {
    if (!(await repo.claim[ex.dialect](ex, ids, nowMicros()))) return answeredAlready(ex, ids, hash, again);
    await repo.savepoint(ex);
    let outcome: Outcome<T>;
    try {
      outcome = { ok: true, value: await work(ex) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    let answer: Answer;
    if (outcome.ok) {
      answer = answers.value(outcome.value);
    } else {
      const refusal = answers.error(outcome.error);
      if (!refusal) throw outcome.error;
      await repo.undoWork(ex);
      answer = refusal;
    }
    const now = nowMicros();
    const stored = await repo.store(ex, {
      ...ids,
      request_hash: hash,
      response_status: answer.status,
      response_body: answer.body,
      created_at: now,
      expires_at: now + RETENTION_MICROS,
    });
    if (!stored) {
      await repo.undoWork(ex);
      return answeredAlready(ex, ids, hash, again);
    }
    return outcome;
  },

  /**
   * Stores an answer given outside a write transaction (an operation that writes on its own), in a transaction
   * of its own under the claim. false when another request holds or answered the key: its answer stands.
   */
  async storeAnswer(db: Db, ids: IdempotencyKeyIds, hash: string, answer: Answer): Promise<boolean> {
    return db.write(async (ex) => {
      const now = nowMicros();
      if (!(await repo.claim[ex.dialect](ex, ids, now))) return false;
      return repo.store(ex, {
        ...ids,
        request_hash: hash,
        response_status: answer.status,
        response_body: answer.body,
        created_at: now,
        expires_at: now + RETENTION_MICROS,
      });
    });
  },

  /** Deletes every key past its retention (maintenance); returns how many. */
  async deleteExpired(db: Db, now = nowMicros()): Promise<number> {
    return repo.deleteAllExpired(db.direct, now);
  },
};
