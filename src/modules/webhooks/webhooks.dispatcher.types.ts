import type { Db } from '../../db/database.js';
import type { GroupedWrites } from '../../speed/grouped-writes.js';
import type { EndpointKey } from './deliveries.repository.js';
import type { Ended } from './webhooks.attempt.js';
import type { StatementGroups } from '../../speed/statement-groups.js';
import type { Resolver } from './webhooks.targets.js';

/** What a dispatcher is given and what it answers (webhooks.dispatcher.ts). */
export interface DispatcherOptions {
  db: Db;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS */
  allowPrivateTargets: boolean;
  /** Sandbox mode: loopback receivers are allowed (docs/sandbox.md). */
  allowLoopbackTargets?: boolean;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** microseconds now: schedules, leases, the retry window and the log's times (tests move it) */
  now?: () => number;
  resolve?: Resolver;
  random?: () => number;
  /** attempts under way at once, in all (default DELIVERY_CONCURRENCY: 64) */
  concurrency?: number;
  /** … for one account (default ACCOUNT_CONCURRENCY: 16) and for one endpoint (ENDPOINT_CONCURRENCY: 8) */
  accountConcurrency?: number;
  endpointConcurrency?: number;
  /** one attempt's whole exchange (default 10 s) */
  timeoutMs?: number;
  /** the pause after a step that found nothing to do (default 1 s), unless woken (`wake`) */
  idleMs?: number;
  /** microseconds another dispatcher's heartbeat may stand still before its claims are taken over (default 5 s) */
  takeoverAfter?: number;
  /** microseconds a claim is this process's at most (default LEASE: 60 s; WEBHOOK_LEASE_SECONDS) */
  lease?: number;
  /**
   * Tests: attempts' outcomes written through these savepoint groups (webhooks.attempt.ts; SQLite's with the piece
   * `grouped-outcomes` off, when PostgreSQL writes each outcome alone), to decide which outcomes share a transaction.
   */
  outcomeWrites?: GroupedWrites;
  /**
   * Tests: the outcomes written as groups (src/speed/statement-groups.ts; the default), through what this makes of the
   * groups (to decide which outcomes share a transaction).
   */
  outcomeGroups?: (groups: StatementGroups<Ended>) => StatementGroups<Ended>;
}

export interface RoundStats {
  /** new events looked at for the endpoints, and the deliveries made of them */
  scanned: number;
  fanned: number;
  attempted: number;
  delivered: number;
}

/** A delivery a step claimed, its attempt under way. */
export interface Claimed extends EndpointKey {
  delivery_id: string;
  event_id: string;
  /** Whether the attempt delivered, once its outcome is written (rejects when it could not be). */
  settled: Promise<boolean>;
  /** The deliveries its outcome's transaction claimed for the place it freed, their attempts begun. */
  next: Promise<Claimed[]>;
}

export interface Step {
  scanned: number;
  fanned: number;
  /** In the order the places were handed out (round-robin over the accounts). */
  claimed: Claimed[];
}

export interface Dispatcher {
  /** This process's dispatcher id (the claimed_by of its claims). */
  readonly id: string;
  /**
   * One step: new events made into deliveries (a bounded share, in turns), then due deliveries claimed for the free
   * places, fairly (webhooks.scheduler.ts), and their attempts started, not awaited.
   */
  step(): Promise<Step>;
  /** Steps, each one's attempts awaited, until a step finds nothing to do: everything due now is attempted. */
  runOnce(): Promise<RoundStats>;
  /** Resolves when every attempt under way has ended (delivered, failed or timed out) and its outcome is written. */
  settled(): Promise<void>;
  /**
   * Steps until stop(): again at once after a step that did something, else after idleMs. (A place an attempt frees
   * is handed out as the attempt ends, in its outcome's transaction.)
   */
  start(): void;
  /**
   * Steps now, rather than after idleMs: events were committed, or deliveries made due (events.bell.ts). Called
   * during a step, the loop steps again right after it.
   */
  wake(): void;
  /** Resolves when the loop waits with nothing to do (now, if it does), or when it stops. */
  whenIdle(): Promise<void>;
  /** Ends the loop, then waits for the attempts under way (they finish or time out), and claims nothing more. */
  stop(): Promise<void>;
}
