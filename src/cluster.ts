import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Registry } from 'prom-client';
import {
  isAsk,
  isCollected,
  isEventsRung,
  passEventsOn,
  type Answer,
  type Ask,
  type Collect,
} from './cluster-worker.js';
import type { Config, LogLevel } from './config.js';
import { memoryCounters } from './http/rate-limit.js';

/**
 * The primary of WORKERS server processes on one port (node:cluster; the primary accepts the connections and
 * hands them round-robin to the workers, each of which runs src/server.ts's service as a single process does).
 * It serves no request itself. It restarts a worker that dies, waiting longer after each death that follows a
 * short life (100 ms doubling to 30 s) so that a worker that cannot start does not spin; on SIGTERM or SIGINT it
 * passes SIGTERM to every worker, each drains its in-flight requests, and the primary exits when the last has.
 * It keeps what the set shares: the metrics of all workers (aggregated on request) and, without REDIS_URL, the
 * rate-limit counters. docs/operations.md describes it.
 */

const FIRST_DELAY_MS = 100;
const LONGEST_DELAY_MS = 30_000;
/** A worker that lived this long before it died is restarted at once, and its slot's backoff starts over. */
const STABLE_AFTER_MS = 10_000;
/** A worker that has not sent its metrics by then is left out of the set's. */
const COLLECT_TIMEOUT_MS = 1000;

const LEVELS: Record<Exclude<LogLevel, 'silent'>, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};

/** JSON lines in the workers' (pino's) shape, so that one reader handles the set's output. */
function logger(level: LogLevel) {
  const threshold = level === 'silent' ? Infinity : LEVELS[level];
  const write = (at: keyof typeof LEVELS, fields: object, msg: string) => {
    if (LEVELS[at] < threshold) return;
    const line = { level: LEVELS[at], time: new Date().toISOString(), pid: process.pid, role: 'primary', ...fields };
    process.stdout.write(`${JSON.stringify({ ...line, msg })}\n`);
  };
  return {
    info: (fields: object, msg: string) => write('info', fields, msg),
    warn: (fields: object, msg: string) => write('warn', fields, msg),
    error: (fields: object, msg: string) => write('error', fields, msg),
  };
}

interface Slot {
  worker: Worker | null;
  startedAt: number;
  /** deaths in a row that each followed a short life */
  failures: number;
  restart: NodeJS.Timeout | null;
}

/** Runs `prepare` (the migrations, once for the set), then forks and keeps `config.workers` workers. */
export async function runPrimary(config: Config, prepare: () => Promise<void>): Promise<void> {
  const log = logger(config.logLevel);
  await prepare();

  const own = new Registry();
  const running = new Gauge({ name: 'svc_cluster_workers', help: 'Workers serving', registers: [own] });
  const restarts = new Counter({
    name: 'svc_cluster_worker_restarts_total',
    help: 'Workers that died and were started again',
    registers: [own],
  });
  const limits = memoryCounters();

  const slots: Slot[] = Array.from({ length: config.workers }, () => ({
    worker: null,
    startedAt: 0,
    failures: 0,
    restart: null,
  }));
  let stopping = false;
  let exitCode = 0;
  let announced = false;
  const listeningSlots = new Set<number>();

  // The set's metrics, from the workers that listen (one still starting, or stuck, is left out after a second
  // rather than failing the scrape), aggregated as prom-client's AggregatorRegistry does, and the primary's own.
  let lastCollect = 0;
  const collectFrom = (worker: Worker) =>
    new Promise<unknown[] | null>((resolve) => {
      const id = ++lastCollect;
      const timer = setTimeout(() => done(null), COLLECT_TIMEOUT_MS);
      const listen = (message: unknown) => {
        if (isCollected(message) && message.id === id) done(message.metrics);
      };
      const done = (metrics: unknown[] | null) => {
        clearTimeout(timer);
        worker.off('message', listen);
        resolve(metrics);
      };
      worker.on('message', listen);
      const request: Collect = { svc: 'collect', id };
      if (worker.isConnected()) worker.send(request);
      else done(null);
    });
  const setMetrics = async (): Promise<string> => {
    const ready = slots.filter((slot, i) => slot.worker !== null && listeningSlots.has(i));
    const answers = await Promise.all(ready.map((slot) => collectFrom(slot.worker!)));
    const missing = answers.filter((a) => a === null).length;
    if (missing > 0) log.warn({ workers: missing }, 'workers did not report their metrics in time');
    const set = AggregatorRegistry.aggregate(answers.filter((a) => a !== null));
    return `${await set.metrics()}\n${await own.metrics()}`;
  };

  const answer = async (worker: Worker, ask: Ask) => {
    let reply: Answer;
    try {
      const q = ask.question;
      const value = q.what === 'metrics' ? await setMetrics() : await limits.incr(q.key, q.timeWindow, q.max);
      reply = { svc: 'answer', id: ask.id, value };
    } catch (error) {
      reply = { svc: 'answer', id: ask.id, error: error instanceof Error ? error.message : String(error) };
    }
    // With a callback: a worker that died meanwhile fails this send, not the primary.
    if (worker.isConnected()) worker.send(reply, undefined, {}, () => undefined);
  };

  const fork = (index: number) => {
    const slot = slots[index]!;
    slot.restart = null;
    slot.startedAt = Date.now();
    const worker = cluster.fork({ SVC_WORKER_SLOT: String(index) });
    slot.worker = worker;
    running.set(slots.filter((s) => s.worker !== null).length);
    worker.on('message', (message: unknown) => {
      if (isAsk(message)) void answer(worker, message);
      else if (isEventsRung(message)) passEventsOn(slots[0]?.worker ?? null);
    });
    worker.on('listening', (address) => {
      listeningSlots.add(index);
      log.info({ worker: index, worker_pid: worker.process.pid }, 'worker listening');
      if (!announced && listeningSlots.size === slots.length) {
        announced = true;
        const host = address.address.includes(':') ? `[${address.address}]` : address.address;
        log.info(
          { address: `http://${host}:${address.port}`, workers: slots.length, database: config.database.dialect },
          'svc is listening',
        );
      }
    });
    worker.on('exit', (code, signal) => {
      slot.worker = null;
      listeningSlots.delete(index);
      running.set(slots.filter((s) => s.worker !== null).length);
      if (stopping) {
        if (code !== 0) exitCode = 1;
        if (slots.every((s) => s.worker === null)) {
          log.info({ code: exitCode }, 'every worker has drained; exiting');
          process.exit(exitCode);
        }
        return;
      }
      const lived = Date.now() - slot.startedAt;
      slot.failures = lived >= STABLE_AFTER_MS ? 0 : slot.failures + 1;
      const delay = slot.failures === 0 ? 0 : Math.min(FIRST_DELAY_MS * 2 ** (slot.failures - 1), LONGEST_DELAY_MS);
      restarts.inc();
      log.warn(
        { worker: index, worker_pid: worker.process.pid, code, signal, lived_ms: lived, restart_in_ms: delay },
        'worker died; starting another',
      );
      slot.restart = setTimeout(() => fork(index), delay);
    });
  };

  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, workers: slots.filter((s) => s.worker).length }, 'draining every worker, then exiting');
    for (const slot of slots) {
      if (slot.restart) clearTimeout(slot.restart);
      slot.restart = null;
      slot.worker?.process.kill('SIGTERM');
    }
    if (slots.every((s) => s.worker === null)) process.exit(0);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  for (let i = 0; i < slots.length; i++) fork(i);
}
