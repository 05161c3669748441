/**
 * The pieces of speed machinery that can be turned off, one at a time, for an A/B in the bench (docs/performance.md,
 * "Speed behind one seam"). Every piece is on unless the process was started with `SVC_SPEED_OFF=<piece>[,<piece>]`,
 * which the entry point (src/server.ts) hands to `turnOff` once, before the database is opened and the app built.
 * It is a bench switch, not configuration: nothing documents it for operators (a test sets it only to hold the
 * two forms of a piece to the same answers).
 *
 * Each piece reads its switch once, where it is built (the database, the app's hooks, a query's first compile), or
 * swaps a function when turned off: no request asks a switch.
 */
export const SPEED_PIECES = [
  /** SQLite: the driver keeps the last 1000 prepared statements. */
  'statement-cache',
  /** Hot queries built and compiled once per dialect, then run with new values. */
  'prepared',
  /** A token's grant kept while the database's change mark is unchanged (SQLite's; PostgreSQL's, at most 1 s). */
  'grant-cache',
  /** Tokens asked for at the same time committed in one transaction. */
  'group-commit',
  /** Receipt uploads' transactions asked for at the same time run as savepoints of one, one commit for all. */
  'grouped-writes',
  /**
   * The outcomes of webhook attempts that end together written in one transaction (PostgreSQL: by one statement),
   * and one claim for the places they free.
   */
  'grouped-outcomes',
  /**
   * Webhook deliveries' claims and outcomes commit without waiting for the disk (`WriteOptions.durable` false): a
   * power cut may lose the last of them, and those deliveries are sent again (at least once, same id).
   */
  'lazy-commit',
  /** A redundant `key in (…)` beside a join on that key: SQLite probes the primary key per key. */
  'hint-key-probe',
  /** `cross join`: SQLite keeps the written join order (the few keys first). */
  'hint-join-order',
  /**
   * PostgreSQL: JIT off for a statement whose estimates are large and whose run is short (in its transaction's BEGIN,
   * `WriteOptions.jit`, or `set local jit = off` before it).
   */
  'hint-no-jit',
  /** PostgreSQL: a prepared SELECT outside a transaction run on the pool at once, without Kysely's hand-over. */
  'pg-direct-reads',
  /** PostgreSQL: hot statements of constant text kept named on each connection, planned once. */
  'pg-named-statements',
  /** Random bytes drawn 4 kB at a time. */
  'random-pool',
  /** The coded values of approved record versions kept between suggestion requests. */
  'suggestion-values',
  /** PostgreSQL, autovacuum off: the service vacuums and analyses its stale tables every ten seconds. */
  'statistics-refresh',
  /** The server's and the CLI's bundles run from the bytecode an earlier process compiled (V8's code cache). */
  'code-cache',
] as const;

export type SpeedPiece = (typeof SPEED_PIECES)[number];

const isPiece = (name: string): name is SpeedPiece => (SPEED_PIECES as readonly string[]).includes(name);

const off = new Set<SpeedPiece>();
const listeners: (() => void)[] = [];

/**
 * The pieces off are exactly those listed (a comma-separated list; an unknown name is an error, not silently
 * ignored); `undefined` or '' turns every piece on again.
 */
export function turnOff(list: string | undefined): void {
  off.clear();
  for (const name of (list ?? '').split(',').map((s) => s.trim())) {
    if (name === '') continue;
    if (!isPiece(name)) throw new Error(`SVC_SPEED_OFF: unknown piece ${name} (known: ${SPEED_PIECES.join(', ')})`);
    off.add(name);
  }
  for (const apply of listeners) apply();
}

export function isOn(piece: SpeedPiece): boolean {
  return !off.has(piece);
}

/** For pieces that swap a function: `apply` runs now and again whenever the switches change. */
export function onSwitches(apply: () => void): void {
  listeners.push(apply);
  apply();
}
