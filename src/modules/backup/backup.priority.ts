/**
 * A backup yields the CPU to the service it runs beside: its threads (SQLite's copy and check, the checksum) run at
 * this nice value, so that on a busy machine the service's reads keep their latency (issue 35: p99 within 3× of a
 * quiet one) and the backup takes what the service leaves; with nothing else to run it takes the whole CPU. pg_dump
 * keeps its own: the PostgreSQL server's process that reads for it does most of that work, and reads kept their p99
 * beside it. On Linux a nice value belongs to one thread, not to the process: the threads of the server that runs a
 * scheduled backup keep theirs.
 */
export const BACKUP_NICE = 10;

/**
 * A worker script's first statement (plain CommonJS text, as the workers are): lowers its own thread to
 * `workerData.nice` on Linux (elsewhere a nice value is the whole process's, which must not change). Only ever
 * lowers: a service started at a lower priority still (a higher nice value) keeps it, as raising it would be refused
 * to an unprivileged process. A refusal of any kind (a sandbox's) leaves the thread as it is: the priority is a
 * courtesy to the service, never a reason for a backup to fail. The workers make synchronous calls only: a niced
 * thread that started libuv's shared thread pool would hand its nice value to the pool's threads.
 */
export const LOWER_OWN_PRIORITY = `
{
  const { workerData } = require('node:worker_threads');
  const os = require('node:os');
  try {
    if (process.platform === 'linux' && os.getPriority(0) < workerData.nice) os.setPriority(0, workerData.nice);
  } catch {
    // left at its priority (see backup.priority.ts)
  }
}
`;
