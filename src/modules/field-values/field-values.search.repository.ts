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

type Search = (
  ex: Executor,
  accountId: string,
  fieldId: string,
  text: string,
  match: ValueMatch,
  limit: number,
) => Promise<ShownValueRow[]>;

const shown = (alias: string) => sql.join(SHOWN_VALUE_COLUMNS.map((c) => sql.ref(`${alias}.${c}`)));

/**
 * Values of one field whose value (or remote_id) contains `text`, or whose value starts with it; in creation order.
 * SQLite: the FTS5 trigram index `field_values_search` (migration 0006), case-insensitive; PostgreSQL: the pg_trgm
 * index over `value || ' ' || remote_id` with ILIKE. Under three characters (no trigram), the field's values are
 * read in value order through their index and the first that start with the text are answered.
 */
const searchBy: ByDialect<Search> = {
  async sqlite(ex, accountId, fieldId, text, match, limit) {
    if (text.length < TRIGRAM) {
      const rows = await sql<ShownValueRow>`
        select ${shown('v')} from field_values v
        where v.account_id = ${accountId} and v.field_id = ${fieldId} and v.value like ${`${likeLiteral(text)}%`} escape '\\'
        order by v.svc_id limit ${limit}`.execute(ex);
      return rows.rows;
    }
    const prefix = match === 'prefix' ? sql`and v.value like ${`${likeLiteral(text)}%`} escape '\\'` : sql``;
    const rows = await sql<ShownValueRow>`
      select ${shown('v')} from field_values_search s join field_values v on v.rowid = s.rowid
      where field_values_search match ${ftsPhrase(text)}
        and v.account_id = ${accountId} and v.field_id = ${fieldId} ${prefix}
      order by v.svc_id limit ${limit}`.execute(ex);
    return rows.rows;
  },
  async postgres(ex, accountId, fieldId, text, match, limit) {
    const pattern = match === 'prefix' || text.length < TRIGRAM ? `${likeLiteral(text)}%` : `%${likeLiteral(text)}%`;
    const target =
      match === 'prefix' || text.length < TRIGRAM ? sql`v.value` : sql`(v.value || ' ' || coalesce(v.remote_id, ''))`;
    const rows = await sql<ShownValueRow>`
      select ${shown('v')} from field_values v
      where v.account_id = ${accountId} and v.field_id = ${fieldId} and ${target} ilike ${pattern} escape '\\'
      order by v.svc_id limit ${limit}`.execute(ex);
    return rows.rows.map((r) => ({ ...r, updated_at: Number(r.updated_at) }));
  },
};

export const valueSearchRepository = {
  async search(...args: Parameters<Search>): Promise<ShownValueRow[]> {
    return searchBy[args[0].dialect](...args);
  },
};
