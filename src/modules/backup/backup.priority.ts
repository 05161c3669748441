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
 * `workerData.nice` on Linux (elsewhere a nice value is the whole process's, which must not change).
 */
export const LOWER_OWN_PRIORITY = `
if (process.platform === 'linux' && require('node:worker_threads').workerData.nice > 0)
  require('node:os').setPriority(0, require('node:worker_threads').workerData.nice);
`;
