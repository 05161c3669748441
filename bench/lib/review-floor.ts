import { parseDatabaseUrl, type DatabaseTarget } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import type { Caller } from '../../src/modules/auth/auth.service.js';
import { codingService } from '../../src/modules/accounting/coding.service.js';
import { reviewService } from '../../src/modules/accounting/review.service.js';
import type { CodeLinesInput } from '../../src/modules/accounting/review.schemas.js';
import type { ReviewStatus } from '../../src/modules/accounting/lifecycle.js';

/**
 * The data floors of the review workflow: the same work as the HTTP operation (the service, its SQL and the
 * answer object) on the same database, in this process, without HTTP, authentication, validation or
 * idempotency. Rates per second.
 */
export async function codingFloor(
  url: string,
  accountId: string,
  edits: readonly { id: string; input: CodeLinesInput }[],
): Promise<number> {
  const db = openDatabase(parseDatabaseUrl(url) as DatabaseTarget);
  const caller: Caller = { accountId, actor: { type: 'system', id: 'bench' } };
  try {
    const started = performance.now();
    for (const edit of edits) {
      const answer = await db.write((ex) => codingService.codeLines(ex, caller, edit.id, edit.input));
      JSON.stringify(answer);
    }
    return edits.length / ((performance.now() - started) / 1000);
  } finally {
    await db.close();
  }
}

export async function bulkMoveFloor(
  url: string,
  accountId: string,
  batches: readonly { review_status: ReviewStatus; records: { id: string }[] }[],
): Promise<number> {
  const db = openDatabase(parseDatabaseUrl(url) as DatabaseTarget);
  const caller: Caller = { accountId, actor: { type: 'system', id: 'bench' } };
  try {
    const started = performance.now();
    let moved = 0;
    for (const batch of batches) {
      const answer = await db.write((ex) => reviewService.moveMany(ex, caller, batch));
      JSON.stringify(answer);
      moved += batch.records.length;
    }
    return moved / ((performance.now() - started) / 1000);
  } finally {
    await db.close();
  }
}
