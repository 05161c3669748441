import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often the copy's dirty pages are sent to the disk while SQLite writes them. */
const EVERY_MS = 200;

/**
 * Sends a file's written pages to the disk while another thread is still writing it: SQLite's backup writes the copy
 * 4 KiB page by page into the page cache and flushes it all at its commit, so that the copy's whole write-out (about
 * a second per GB here, small pages being slow to write back) came after the copy, in series with it. Flushed as it
 * grows, the write-out runs beside the copy (in libuv's pool: this thread's event loop goes on) and the commit's
 * flush finds little left; what is durable, and when, is unchanged (the commit still flushes, the backup after it).
 *
 * The file is opened once it exists (never created here) and closed by `close()` only: closing a descriptor of a file
 * drops every POSIX lock this process holds on it, SQLite's included, so the caller closes it once SQLite's
 * connections to the file are closed.
 */
export function writeOutMeanwhile(file: string): { stop: () => Promise<void>; close: () => Promise<void> } {
  let handle: fs.promises.FileHandle | undefined;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await sleep(EVERY_MS, undefined, { ref: false });
      if (stopped) break;
      try {
        handle ??= await fs.promises.open(file, 'r');
        await handle.datasync();
      } catch {
        // Not created yet (tried again), or gone with a failed copy: the backup's own steps report what failed.
      }
    }
  })();
  const stop = async () => {
    stopped = true;
    await loop;
  };
  return {
    stop,
    close: async () => {
      await stop();
      await handle?.close();
      handle = undefined;
    },
  };
}
