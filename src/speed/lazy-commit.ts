import type { WriteOptions } from '../db/database.js';
import { isOn } from './switches.js';

/**
 * How webhook deliveries' claims and outcomes are written (piece `lazy-commit`): they commit without waiting for the
 * disk (`WriteOptions.durable` false: SQLite's commit writes the WAL without syncing it, PostgreSQL's does not wait
 * for its WAL flush). What a power cut or a crash of the machine loses of them is done again: a claim lost leaves its
 * delivery due, an outcome lost is a delivery sent again with the same id (at least once: docs/webhooks.md), its
 * attempt's log line lost with it. Read once where the dispatcher and its outcome groups are built.
 */
export const deliveryCommit = (): WriteOptions => ({
  durable: !isOn('lazy-commit'),
  // The due endpoints these transactions run is planned without JIT (piece `hint-no-jit`, src/speed/hints.ts): said
  // once with the transaction's BEGIN (PostgreSQL), not before each run.
  ...(isOn('hint-no-jit') ? { jit: false } : {}),
});
