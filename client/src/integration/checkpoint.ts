import fs from 'node:fs';
import path from 'node:path';

/** Where each polling stream stands, and how much of the output file that accounts for. */
export interface Checkpoint {
  version: 1;
  /** The greatest updated_at written per stream; the next pass asks for updated_at[gt] this. */
  streams: Record<string, string | null>;
  /** Bytes of the output file covered by this checkpoint; anything after it is from an unfinished page. */
  output_bytes: number;
}

export function readCheckpoint(file: string, streams: readonly string[]): Checkpoint {
  let stored: Partial<Checkpoint> = {};
  try {
    stored = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    if (!(error instanceof Error) || !('code' in error) || error.code !== 'ENOENT')
      throw new Error(`checkpoint ${file} is unreadable: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
  }
  const result: Checkpoint = { version: 1, streams: {}, output_bytes: stored.output_bytes ?? 0 };
  for (const s of streams) result.streams[s] = stored.streams?.[s] ?? null;
  return result;
}

/** Replaces the checkpoint atomically: write a temporary file, fsync it, rename it over, fsync the folder. */
export function writeCheckpoint(file: string, checkpoint: Checkpoint): void {
  const temp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temp, 'w');
  try {
    fs.writeSync(fd, `${JSON.stringify(checkpoint)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
  const dir = fs.openSync(path.dirname(path.resolve(file)), 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}
