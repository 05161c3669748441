import ipaddr from 'ipaddr.js';
import type { Db } from '../../db/database.js';
import { nowMicros } from '../../lib/clock.js';
import { hashSecret } from '../auth/auth.service.js';
import { throttleRepository } from './throttle.repository.js';
import type { SignInThrottlesTable } from './users.tables.js';

const SECOND = 1_000_000;

/**
 * Failures under a key before any delay; then each failure refuses the key for twice as long as the one before
 * (1 s, 2 s, 4 s …), at most MAX_DELAY. Documented in docs/console.md; the lead may wire them to settings.
 */
export const THROTTLE = {
  /** one email from one address: a stranger elsewhere never moves this counter */
  pairFree: 5,
  /** one address, whatever the emails (an office behind one NAT shares it: hence more room) */
  addressFree: 20,
  /** a user's second step (TOTP or recovery code): only someone who has the password reaches it */
  secondStepFree: 5,
  firstDelay: SECOND,
  maxDelay: 15 * 60 * SECOND,
  /** a counter untouched this long starts again from nothing (and the sweep deletes it) */
  forgetAfter: 24 * 3600 * SECOND,
} as const;

export interface ThrottleKey {
  /** sha256 of the key's text */
  hash: string;
  /** failures before delays start */
  free: number;
}

const keyOf = (text: string, free: number): ThrottleKey => ({ hash: hashSecret(text), free });

/**
 * The address a throttle counts: IPv4 as it is (an IPv4-mapped IPv6 address too), IPv6 by its /64, since one
 * host commonly holds a whole /64 and could otherwise take a new address for every guess.
 */
export function throttleAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}

/** How long a key is refused after its `failures`-th counted failure (microseconds; 0 while within its free ones). */
export function delayAfter(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(THROTTLE.firstDelay * 2 ** Math.min(failures - free, 30), THROTTLE.maxDelay);
}

export const throttleKeys = {
  /** A password: the (email, address) pair and the address. Known and unknown emails alike. */
  password: (email: string, ip: string) => {
    const address = throttleAddress(ip);
    return {
      pair: keyOf(`email:${email}\naddress:${address}`, THROTTLE.pairFree),
      address: keyOf(`address:${address}`, THROTTLE.addressFree),
    };
  },
  /** A second-step code: the user (per user, not per address: the password is already known) and the address. */
  secondStep: (userId: string, ip: string) => ({
    pair: keyOf(`second-step:${userId}`, THROTTLE.secondStepFree),
    address: keyOf(`address:${throttleAddress(ip)}`, THROTTLE.addressFree),
  }),
};

export interface KeyPair {
  /** cleared by a success */
  pair: ThrottleKey;
  /** given back its count by a success */
  address: ThrottleKey;
}

/**
 * Sign-in throttling shared by every process and node (the counters are rows of the database). Every attempt is
 * counted under its keys before its password or code is checked, in one transaction that locks the keys' rows, so
 * concurrent guesses share one budget; a key refuses attempts while it is blocked, and the failure that reaches a
 * key's free count blocks it for the next delay.
 */
export const signInThrottle = {
  /** Counts an attempt under both keys; or, when either refuses attempts now, counts nothing and answers the seconds to wait. */
  async attempt(db: Db, keys: KeyPair): Promise<{ retryAfterSeconds: number } | null> {
    const all = [keys.pair, keys.address];
    return db.write(async (ex) => {
      const now = nowMicros();
      const rows = await throttleRepository.lock(
        ex,
        all.map((k) => k.hash),
        now,
      );
      const waits = rows.map((row) => (row.blocked_until ?? 0) - now);
      const wait = Math.max(0, ...waits);
      if (wait > 0) return { retryAfterSeconds: Math.max(1, Math.ceil(wait / SECOND)) };
      for (const row of rows) {
        const failures = (row.updated_at + THROTTLE.forgetAfter <= now ? 0 : row.failures) + 1;
        const delay = delayAfter(failures, freeOf(all, row));
        await throttleRepository.update(ex, {
          throttle_key: row.throttle_key,
          failures,
          // Counted as a failure in advance: a burst arriving together waits behind the first to reach the free count.
          blocked_until: delay > 0 ? now + delay : null,
          updated_at: now,
        });
      }
      return null;
    });
  },

  /**
   * The attempt failed: a key past its free failures is refused for its delay from now (the counting set it from
   * when the attempt began; the check took some time since).
   */
  async failed(db: Db, keys: KeyPair): Promise<void> {
    await db.write(async (ex) => {
      const now = nowMicros();
      const all = [keys.pair, keys.address];
      const rows = await throttleRepository.lock(
        ex,
        all.map((k) => k.hash),
        now,
      );
      for (const row of rows) {
        const delay = delayAfter(row.failures, freeOf(all, row));
        if (delay === 0) continue;
        await throttleRepository.update(ex, { ...row, blocked_until: Math.max(row.blocked_until ?? 0, now + delay) });
      }
    });
  },

  /** The attempt succeeded: the pair starts again; the address gets this attempt back. */
  async succeeded(db: Db, keys: KeyPair): Promise<void> {
    await db.write(async (ex) => {
      const now = nowMicros();
      // Both rows locked first, in key order as every attempt and failure locks them: deleting the pair's row after
      // locking only the address's would wait on a failure that holds the pair and waits on the address (a deadlock).
      const rows = await throttleRepository.lock(ex, [keys.pair.hash, keys.address.hash], now);
      await throttleRepository.delete(ex, keys.pair.hash);
      for (const row of rows) {
        if (row.throttle_key === keys.address.hash)
          await throttleRepository.update(ex, givenBack(row, keys.address.free, now));
      }
    });
  },

  /** Deletes counters nobody has touched for THROTTLE.forgetAfter (maintenance). */
  async deleteStale(db: Db, now: number): Promise<number> {
    return throttleRepository.deleteStale(db.direct, now - THROTTLE.forgetAfter, now);
  },
};

/** The free failures of a row's key (each row was locked for one of `keys`). */
const freeOf = (keys: ThrottleKey[], row: SignInThrottlesTable): number =>
  keys.find((k) => k.hash === row.throttle_key)?.free ?? Number.POSITIVE_INFINITY;

/** A row with one counted attempt given back: its block stays only if the failures left would have set one. */
function givenBack(row: SignInThrottlesTable, free: number, now: number): SignInThrottlesTable {
  const failures = Math.max(0, row.failures - 1);
  return { ...row, failures, blocked_until: failures >= free ? row.blocked_until : null, updated_at: now };
}
