import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import { SHOWN_VALUE_COLUMNS, type ShownValueRow } from './field-values.schemas.js';

export type ValueMatch = 'prefix' | 'contains';

/** `text` as a LIKE pattern's literal part (with `escape '\'`). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
/** `text` as one FTS5 phrase. */
const ftsPhrase = (text: string) => `"${text.replace(/"/g, '""')}"`;

/** Trigram indexes serve three characters and more; shorter text is matched as a prefix of the value only. */
export const TRIGRAM = 3;
/** Characters as the trigram tokenizers count them (code points: "😀😀" is two, not four UTF-16 units). */
const characters = (text: string) => [...text].length;

type Search = (
  ex: Executor,
  accountId: string,
  fieldId: string,
  text: string,
  match: ValueMatch,
  limit: number,
  includeDisabled: boolean,
) => Promise<ShownValueRow[]>;

const shown = (alias: string) => sql.join(SHOWN_VALUE_COLUMNS.map((c) => sql.ref(`${alias}.${c}`)));
// Disabled values are left out by the query, not after it: filtered from a page read with a limit, they took the
// places of the usable values behind them (30 disabled values starting with the text hid every other match).
const usable = (includeDisabled: boolean) => (includeDisabled ? sql`` : sql`and v.is_disabled = 0`);

/** The value starts with `text`, case-insensitive: a range of the (account_id, field_id, lower(value)) index. */
const startsWith = (text: string) =>
  sql`lower(v.value) >= lower(${text}) and lower(v.value) < lower(${text}) || ${'\u{10FFFF}'}`;

/**
 * Values of one field that start with `text` (in order of their lower-cased value, through the index of migration
 * 0006: the first `limit` of a range, however many start with it), or that contain it in value or remote_id (in
 * creation order). Containing, from three characters: SQLite's FTS5 trigram index `field_values_search`, read in
 * rowid (insertion) order so that a frequent text stops at `limit`; PostgreSQL's pg_trgm index over
 * `value || ' ' || remote_id` with ILIKE, then the value or remote_id itself (the concatenation alone matched text
 * spanning the two, "ter C" in "OPS Center" + "C-1"). Under three characters there is no trigram: the values that
 * start with the text are answered.
 */
const searchBy: ByDialect<Search> = {
  async sqlite(ex, accountId, fieldId, text, match, limit, includeDisabled) {
    if (match === 'prefix' || characters(text) < TRIGRAM) {
      const rows = await sql<ShownValueRow>`
        select ${shown('v')} from field_values v
        where v.account_id = ${accountId} and v.field_id = ${fieldId} and ${startsWith(text)} ${usable(includeDisabled)}
        order by lower(v.value) limit ${limit}`.execute(ex);
      return rows.rows;
    }
    const rows = await sql<ShownValueRow>`
      select ${shown('v')} from field_values_search s join field_values v on v.rowid = s.rowid
      where field_values_search match ${ftsPhrase(text)}
        and v.account_id = ${accountId} and v.field_id = ${fieldId} ${usable(includeDisabled)}
      order by s.rowid limit ${limit}`.execute(ex);
    return rows.rows;
  },
  async postgres(ex, accountId, fieldId, text, match, limit, includeDisabled) {
    if (match === 'prefix' || characters(text) < TRIGRAM) {
      const rows = await sql<ShownValueRow>`
        select ${shown('v')} from field_values v
        where v.account_id = ${accountId} and v.field_id = ${fieldId} and ${startsWith(text)} ${usable(includeDisabled)}
        order by lower(v.value) limit ${limit}`.execute(ex);
      return rows.rows.map((r) => ({ ...r, updated_at: Number(r.updated_at) }));
    }
    const pattern = `%${likeLiteral(text)}%`;
    const rows = await sql<ShownValueRow>`
      select ${shown('v')} from field_values v
      where v.account_id = ${accountId} and v.field_id = ${fieldId}
        and (v.value || ' ' || coalesce(v.remote_id, '')) ilike ${pattern} escape '\\'
        and (v.value ilike ${pattern} escape '\\' or v.remote_id ilike ${pattern} escape '\\')
        ${usable(includeDisabled)}
      order by v.svc_id limit ${limit}`.execute(ex);
    return rows.rows.map((r) => ({ ...r, updated_at: Number(r.updated_at) }));
  },
};

export const valueSearchRepository = {
  async search(...args: Parameters<Search>): Promise<ShownValueRow[]> {
    return searchBy[args[0].dialect](...args);
  },
};
