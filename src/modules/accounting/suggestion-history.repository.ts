import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import { preparedQuery } from '../../speed/prepared.js';
import { ID_CHUNK, chunks, filtered, withDetails } from './accounting.repository.js';
import type { RecordType } from './ledger.js';
import type { ReviewStatus } from './lifecycle.js';

/** The states whose coding a person has approved: what suggestions learn from. */
export const APPROVED = ['READY_FOR_EXPORT', 'EXPORTED'] as const satisfies readonly ReviewStatus[];

/** What a suggestion reads of a record, the one it suggests for or one of its history. */
export interface SuggestionRow {
  id: string;
  type: RecordType;
  review_status: ReviewStatus;
  version: number;
  vendor_name: string | null;
  user_email: string | null;
  memo: string | null;
  currency: string;
  amount_minor: number;
  posted_at: number;
  line_items_json: string;
}

/** Which history: records of the same vendor name, of the same user email (both without regard to case), of a type. */
export type HistorySignal = 'VENDOR' | 'USER' | 'RECORD_TYPE';

const COLUMNS = [
  'r.id',
  'r.type',
  'r.review_status',
  'r.version',
  'r.vendor_name',
  'r.user_email',
  'r.memo',
  'r.currency',
  'r.amount_minor',
  'r.posted_at',
  'd.line_items_json',
] as const;

/** The indexed expression of each signal (migrations 0022 and 0033), and the key compared with it. */
const COLUMN = {
  VENDOR: sql`lower(r.vendor_name)`,
  USER: sql`lower(r.user_email)`,
  RECORD_TYPE: sql`r.type`,
} as const;
const keyed = (signal: HistorySignal, key: unknown) => (signal === 'RECORD_TYPE' ? sql`${key}` : sql`lower(${key})`);

/**
 * A record of a history as its read answers it: what a history record shows of its row (its line items are read
 * apart, once). A vendor's and a user's histories are read from their indexes alone (migration 0033: each index
 * holds these columns), so they take no memo; a record type's history takes it too (the memo signal looks among a
 * type's records), reading the records' table for its few rows.
 */
export type HistoryRow = Pick<SuggestionRow, 'id' | 'type' | 'version' | 'currency' | 'amount_minor' | 'posted_at'> & {
  memo?: string | null;
};

const HEAD_COLUMNS = ['r.id', 'r.type', 'r.version', 'r.currency', 'r.amount_minor', 'r.posted_at'] as const;
const WITH_MEMO = { VENDOR: false, USER: false, RECORD_TYPE: true } as const satisfies Record<HistorySignal, boolean>;

type Read = (
  ex: Executor,
  accountId: string,
  signal: HistorySignal,
  keys: readonly string[],
  limit: number,
) => Promise<Map<string, HistoryRow[]>>;

/** One key's read on SQLite, built and compiled once per signal (src/speed/prepared.ts): a page runs hundreds. */
const keyRead = (signal: HistorySignal) =>
  preparedQuery<{ accountId: string; key: string; limit: number }>()((ex, param) =>
    ex
      .selectFrom('accounting_records as r')
      .select(HEAD_COLUMNS)
      .$if(WITH_MEMO[signal], (q) => q.select('r.memo'))
      .where('r.account_id', '=', param('accountId'))
      .where(COLUMN[signal], '=', keyed(signal, param('key')))
      .where('r.review_status', 'in', APPROVED)
      .orderBy('r.posted_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(param('limit')),
  );
const KEY_READS = { VENDOR: keyRead('VENDOR'), USER: keyRead('USER'), RECORD_TYPE: keyRead('RECORD_TYPE') };

/**
 * Each key's last `limit` approved records, their rows only. SQLite: one statement per key (in-process, each a
 * short walk of the index). PostgreSQL: one statement for all keys, a lateral subquery per key walking the same
 * index, so that a grid page's hundreds of keys cost one round trip, not hundreds.
 */
const readHistory: ByDialect<Read> = {
  sqlite: async (ex, accountId, signal, keys, limit) => {
    const byKey = new Map<string, HistoryRow[]>();
    for (const key of keys) byKey.set(key, (await KEY_READS[signal](ex, { accountId, key, limit })).rows);
    return byKey;
  },
  postgres: async (ex, accountId, signal, keys, limit) => {
    const rows = await sql<HistoryRow & { key: string }>`
      select k.key, h.* from unnest(${[...keys]}::text[]) as k(key)
      cross join lateral (
        select r.id, r.type, r.version, r.currency, r.amount_minor, r.posted_at${WITH_MEMO[signal] ? sql`, r.memo` : sql``}
        from accounting_records as r
        where r.account_id = ${accountId} and ${COLUMN[signal]} = ${keyed(signal, sql`k.key`)}
          and r.review_status in (${sql.join(APPROVED)})
        order by r.posted_at desc, r.id desc
        limit ${limit}
      ) as h`.execute(ex);
    const byKey = new Map<string, HistoryRow[]>(keys.map((k) => [k, []]));
    for (const { key, ...row } of rows.rows) byKey.get(key)?.push(row);
    return byKey;
  },
};

export const suggestionHistoryRepository = {
  /** The account's records among `ids` (those it has). */
  async records(ex: Executor, accountId: string, ids: readonly string[]): Promise<SuggestionRow[]> {
    const out: SuggestionRow[] = [];
    for (const chunk of chunks(ids, ID_CHUNK)) {
      out.push(
        ...(await withDetails(filtered(ex, accountId, { ids: chunk }))
          .select(COLUMNS)
          .execute()),
      );
    }
    return out;
  },

  /**
   * For each key, its last `limit` approved records (READY_FOR_EXPORT, EXPORTED), newest posted first (then by id,
   * so that ties of posted_at are ordered too), without their line items (`lineItems`). Each walks one index of
   * migration 0022 (0033 for vendors and users: from the index alone) backwards from its key.
   */
  async history(
    ex: Executor,
    accountId: string,
    signal: HistorySignal,
    keys: readonly string[],
    limit: number,
  ): Promise<Map<string, HistoryRow[]>> {
    if (keys.length === 0) return new Map();
    const byKey = await readHistory[ex.dialect](ex, accountId, signal, keys, limit);
    const newestFirst = (a: HistoryRow, b: HistoryRow) =>
      Number(b.posted_at) - Number(a.posted_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    for (const rows of byKey.values()) rows.sort(newestFirst);
    return byKey;
  },

  /**
   * The line items (stored JSON) of the account's records among `ids`, read in id order (the details' key), so
   * that the records several histories share are read once and neighbours on a page are read together.
   */
  async lineItems(ex: Executor, accountId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const chunk of chunks([...ids].sort(), ID_CHUNK)) {
      const rows = await ex
        .selectFrom('accounting_record_details as d')
        .select(['d.id', 'd.line_items_json'])
        .where('d.account_id', '=', accountId)
        .where('d.id', 'in', chunk)
        .orderBy('d.id')
        .execute();
      for (const row of rows) out.set(row.id, row.line_items_json);
    }
    return out;
  },
};
