/** Splits a page fetched with limit + 1 rows into the page and whether more follow. */
export function pageOf<T>(rows: T[], limit: number): { items: T[]; hasMore: boolean } {
  return rows.length > limit ? { items: rows.slice(0, limit), hasMore: true } : { items: rows, hasMore: false };
}
