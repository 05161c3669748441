import fs from 'node:fs';
import type { AccountingRecordQuery, SvcClient } from '../index.js';
import { nextCursorOf } from '../pages.js';
import { readCheckpoint, writeCheckpoint, type Checkpoint } from './checkpoint.js';

/**
 * The spec's polling rules: card and reimbursement records by review_status=READY_FOR_EXPORT, bill records
 * by source_type=BILL; both with updated_at[gt] = the greatest updated_at already written, following
 * next_cursor. The server guarantees distinct updated_at values that grow in commit order, so this sees
 * every change once.
 */
export const STREAMS = {
  ready_for_export: { review_status: 'READY_FOR_EXPORT' },
  bills: { source_type: 'BILL' },
} as const;
type StreamName = keyof typeof STREAMS;

function isStreamName(name: string): name is StreamName {
  return Object.hasOwn(STREAMS, name);
}

export interface PollOptions {
  client: SvcClient;
  /** NDJSON output file, or '-' for stdout. */
  output: string;
  checkpointFile: string;
  pageSize?: number;
  onProgress?: (counts: Record<StreamName, number>) => void;
  signal?: AbortSignal;
}

/**
 * One pass over both streams. Each page is appended to the output (and fsynced) before the checkpoint moves
 * past it; on start, output beyond the checkpoint (a page cut short by a kill) is cut off, so after a
 * restart nothing is missed or repeated in the file. (On stdout nothing can be taken back: a kill between a
 * page and its checkpoint repeats that page.)
 */
export async function pollOnce(options: PollOptions): Promise<Record<StreamName, number>> {
  const names = Object.keys(STREAMS).filter(isStreamName);
  const checkpoint: Checkpoint = readCheckpoint(options.checkpointFile, names);
  const toStdout = options.output === '-';
  let fd: number | null = null;
  if (!toStdout) {
    fd = fs.openSync(options.output, fs.existsSync(options.output) ? 'r+' : 'w+');
    const size = fs.fstatSync(fd).size;
    if (size > checkpoint.output_bytes) fs.ftruncateSync(fd, checkpoint.output_bytes);
    if (size < checkpoint.output_bytes) {
      throw new Error(
        `output ${options.output} is shorter than its checkpoint says: was it replaced? Use a new checkpoint.`,
      );
    }
  }
  const counts: Record<StreamName, number> = { ready_for_export: 0, bills: 0 };
  try {
    for (const name of names) {
      const after = checkpoint.streams[name];
      let cursor: string | undefined;
      do {
        const query: AccountingRecordQuery = {
          ...STREAMS[name],
          limit: options.pageSize ?? 500,
          ...(after ? { 'updated_at[gt]': after } : {}),
          ...(cursor ? { cursor } : {}),
        };
        const page = await options.client.accountingRecords.query(query, { signal: options.signal });
        if (page.items.length > 0) {
          const lines = page.items.map((record) => `${JSON.stringify(record)}\n`).join('');
          if (fd === null) process.stdout.write(lines);
          else {
            fs.writeSync(fd, lines, checkpoint.output_bytes);
            fs.fsyncSync(fd);
            checkpoint.output_bytes += Buffer.byteLength(lines);
          }
          checkpoint.streams[name] = page.items[page.items.length - 1]!.updated_at;
          writeCheckpoint(options.checkpointFile, checkpoint);
          counts[name] += page.items.length;
          options.onProgress?.(counts);
        }
        cursor = nextCursorOf(page);
      } while (cursor);
    }
  } finally {
    if (fd !== null) fs.closeSync(fd);
  }
  return counts;
}
