import { SvcApiError } from './errors.js';

/** The API's most items in one batch request. */
export const BATCH_LIMIT = 1000;

/** What became of one chunk of a batch larger than one request takes. */
export interface BatchChunk {
  /** 0-based chunk number; the chunk holds items [first, first + count) of the caller's list. */
  index: number;
  first: number;
  count: number;
  /** The chunk's own Idempotency-Key: the caller's key and the chunk number (`<key>.<index>`). */
  idempotency_key: string;
  /** applied: answered 2xx; failed: refused or unanswered after retries; not_sent: after a failed chunk. */
  status: 'applied' | 'failed' | 'not_sent';
  error?: SvcApiError;
}

/**
 * A batch stopped at a chunk that failed: the chunks before it are applied, the failed one is not (a refusal
 * changes nothing; an unanswered one may or may not have been applied), the ones after it were not sent.
 * Sending the same items with the same key again is safe: applied chunks are replayed, not applied twice.
 */
export class SvcBatchError extends Error {
  readonly chunks: BatchChunk[];
  override readonly cause: SvcApiError;
  constructor(chunks: BatchChunk[], cause: SvcApiError) {
    const failed = chunks.find((c) => c.status === 'failed')!;
    const applied = chunks.filter((c) => c.status === 'applied').reduce((n, c) => n + c.count, 0);
    const total = chunks.reduce((n, c) => n + c.count, 0);
    super(
      `Chunk ${failed.index} (items ${failed.first}–${failed.first + failed.count - 1}) failed: ${cause.message} ` +
        `${applied} of ${total} items were applied, in chunks before it; the rest were not sent.`,
      { cause },
    );
    this.name = 'SvcBatchError';
    this.chunks = chunks;
    this.cause = cause;
  }
}

/**
 * Sends `items` in chunks of at most BATCH_LIMIT, one after another, each with its own Idempotency-Key derived
 * from `key`; answers every chunk's answered items in order, or throws SvcBatchError saying what was applied.
 */
export async function inChunks<I, T>(
  items: readonly I[],
  key: string,
  send: (chunk: I[], idempotencyKey: string) => Promise<T[]>,
): Promise<T[]> {
  if (key.length > 240) throw new TypeError('idempotencyKey: at most 240 characters (chunk numbers are added)');
  const chunks: BatchChunk[] = [];
  for (let first = 0, index = 0; first < items.length; first += BATCH_LIMIT, index++) {
    const count = Math.min(BATCH_LIMIT, items.length - first);
    chunks.push({ index, first, count, idempotency_key: `${key}.${index}`, status: 'not_sent' });
  }
  const answered: T[] = [];
  for (const chunk of chunks) {
    try {
      answered.push(...(await send(items.slice(chunk.first, chunk.first + chunk.count), chunk.idempotency_key)));
      chunk.status = 'applied';
    } catch (error) {
      if (!(error instanceof SvcApiError)) throw error;
      chunk.status = 'failed';
      chunk.error = error;
      throw new SvcBatchError(chunks, error);
    }
  }
  return answered;
}
