import type { Db } from '../db/dialect.js';

/** `svc seed --account <id> --records N --values N`: demo data (written with the accounting module). */
export async function seed(_db: Db, _args: string[], _out: (line: string) => void): Promise<void> {
  throw new Error('seed is not implemented yet');
}
