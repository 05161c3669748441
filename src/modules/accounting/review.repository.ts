import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import { hints } from '../../speed/hints.js';
import { preparedQuery } from '../../speed/prepared.js';
import type { RecordType, SourceType } from './ledger.js';
import type { ReviewStatus } from './lifecycle.js';

/**
 * What a review move needs of a record: its state, its amount, and its lines and receipts when coding and the
 * receipt policy must be checked (a move to READY_FOR_EXPORT).
 */
export interface ReviewState {
  id: string;
  type: RecordType;
  source_type: SourceType;
  review_status: ReviewStatus;
  version: number;
  currency: string;
  amount_minor: number;
  line_items_json: string | null;
  receipts_json: string | null;
}

export interface Move {
  id: string;
  from: ReviewStatus;
  version: number;
  to: ReviewStatus;
  updatedAt: number;
}

const ID_CHUNK = 500;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One record's move, conditional on the state read (a concurrent change makes it a no-op, not a lost update). */
const moveOne = preparedQuery<{
  accountId: string;
  id: string;
  from: ReviewStatus;
  version: number;
  to: ReviewStatus;
  updatedAt: number;
}>()((ex, p) =>
  ex
    .updateTable('accounting_records')
    .set((eb) => ({ review_status: p('to'), updated_at: p('updatedAt'), version: eb('version', '+', 1) }))
    .where('account_id', '=', p('accountId'))
    .where('id', '=', p('id'))
    .where('version', '=', p('version'))
    .where('review_status', '=', p('from')),
);

/**
 * SQLite: one compiled statement per record, each a primary-key probe (as export results). PostgreSQL: one
 * statement per 500 records, each statement being a round trip.
 */
const moveManyBy: ByDialect<(ex: Executor, accountId: string, moves: readonly Move[]) => Promise<number>> = {
  async sqlite(ex, accountId, moves) {
    let changed = 0;
    for (const m of moves) {
      const result = await moveOne(ex, { accountId, ...m });
      changed += Number(result.numAffectedRows ?? 0n);
    }
    return changed;
  },
  async postgres(ex, accountId, moves) {
    let changed = 0;
    for (const chunk of chunks(moves, ID_CHUNK)) {
      const values = sql.join(
        chunk.map(
          (m) => sql`(${m.id}, cast(${m.version} as integer), ${m.from}, ${m.to}, cast(${m.updatedAt} as bigint))`,
        ),
      );
      const result = await sql`
        with v(id, version, from_status, to_status, updated_at) as (values ${values})
        update accounting_records
        set review_status = v.to_status, updated_at = v.updated_at, version = accounting_records.version + 1
        from v
        where accounting_records.account_id = ${accountId} and accounting_records.id = v.id
          and accounting_records.version = v.version and accounting_records.review_status = v.from_status`.execute(ex);
      changed += Number(result.numAffectedRows ?? 0n);
    }
    return changed;
  },
};

/** A record's line items rewritten, conditional on the version read (updateLinesMany). */
export interface LinesChange {
  id: string;
  version: number;
  lineItemsJson: string;
  uncodedLines: number;
  updatedAt: number;
}

/**
 * SQLite: two compiled statements per record, each a primary-key probe (in-process, a statement costs little).
 * PostgreSQL: two statements per 500 records (the rows, then their details), the changes joined as VALUES: a
 * round trip per statement is what a record at a time cost there.
 */
const updateLinesManyBy: ByDialect<
  (ex: Executor, accountId: string, changes: readonly LinesChange[]) => Promise<number>
> = {
  async sqlite(ex, accountId, changes) {
    let changed = 0;
    for (const c of changes) if (await reviewRepository.updateLines(ex, accountId, c.id, c.version, c)) changed++;
    return changed;
  },
  async postgres(ex, accountId, changes) {
    let changed = 0;
    for (const chunk of chunks(changes, ID_CHUNK)) {
      const rows = sql.join(
        chunk.map(
          (c) =>
            sql`(${c.id}, cast(${c.version} as integer), cast(${c.updatedAt} as bigint), cast(${c.uncodedLines} as integer))`,
        ),
      );
      const result = await sql`
        with v(id, version, updated_at, uncoded_lines) as (values ${rows})
        update accounting_records
        set version = v.version + 1, updated_at = v.updated_at, uncoded_lines = v.uncoded_lines
        from v
        where accounting_records.account_id = ${accountId} and accounting_records.id = v.id
          and accounting_records.version = v.version`.execute(ex);
      changed += Number(result.numAffectedRows ?? 0n);
      const details = sql.join(chunk.map((c) => sql`(${c.id}, ${c.lineItemsJson})`));
      await sql`
        with v(id, line_items_json) as (values ${details})
        update accounting_record_details
        set line_items_json = v.line_items_json
        from v
        where accounting_record_details.account_id = ${accountId} and accounting_record_details.id = v.id`.execute(ex);
    }
    return changed;
  },
};

export const reviewRepository = {
  /**
   * The review state of each given record the account has (a primary-key probe each: the ids joined as VALUES),
   * with its line items and receipts when `withLines`.
   */
  async states(ex: Executor, accountId: string, ids: readonly string[], withLines: boolean): Promise<ReviewState[]> {
    const out: ReviewState[] = [];
    for (const chunk of chunks(ids, ID_CHUNK)) {
      // The ids first, then a primary-key probe per id (a hint: with the planner free to order the join, SQLite
      // chose to walk the account's whole details table).
      const lines = withLines ? sql`d.line_items_json` : sql`null`;
      const receipts = withLines ? sql`d.receipts_json` : sql`null`;
      const details = withLines ? sql`${hints.joinInWrittenOrder} accounting_record_details d` : sql``;
      const detailsMatch = withLines ? sql`and d.account_id = r.account_id and d.id = r.id` : sql``;
      const result = await sql<ReviewState>`
        with v(id) as (values ${sql.join(chunk.map((id) => sql`(${id})`))})
        select r.id, r.type, r.source_type, r.review_status, r.version, r.currency, r.amount_minor,
          ${lines} as line_items_json, ${receipts} as receipts_json
        from v ${hints.joinInWrittenOrder} accounting_records r ${details}
        where r.account_id = ${accountId} and r.id = v.id ${detailsMatch}`.execute(ex);
      out.push(
        ...result.rows.map((row) => ({ ...row, version: Number(row.version), amount_minor: Number(row.amount_minor) })),
      );
    }
    return out;
  },

  /** Applies the moves; returns how many records changed (all of them, under the account's clock lock). */
  async moveMany(ex: Executor, accountId: string, moves: readonly Move[]): Promise<number> {
    return moveManyBy[ex.dialect](ex, accountId, moves);
  },

  /**
   * Rewrites many records' line items (rules applied on demand) in the caller's transaction; answers how many were
   * still at their `version` (the caller, holding the clock lock, expects all: fewer means it must roll back, since
   * the details of a record that had moved on are rewritten too).
   */
  async updateLinesMany(ex: Executor, accountId: string, changes: readonly LinesChange[]): Promise<number> {
    return updateLinesManyBy[ex.dialect](ex, accountId, changes);
  },

  /** Rewrites a record's line items (a coding, split or merge); true if the record was still at `version`. */
  async updateLines(
    ex: Executor,
    accountId: string,
    id: string,
    version: number,
    change: { lineItemsJson: string; uncodedLines: number; updatedAt: number },
  ): Promise<boolean> {
    const result = await ex
      .updateTable('accounting_records')
      .set({ version: version + 1, updated_at: change.updatedAt, uncoded_lines: change.uncodedLines })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('version', '=', version)
      .executeTakeFirst();
    if (result.numUpdatedRows !== 1n) return false;
    await ex
      .updateTable('accounting_record_details')
      .set({ line_items_json: change.lineItemsJson })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
    return true;
  },
};
