/** Splits a page fetched with limit + 1 rows into the page and whether more follow. */
export function pageOf<T>(rows: T[], limit: number): { items: T[]; hasMore: boolean } {
  return rows.length > limit ? { items: rows.slice(0, limit), hasMore: true } : { items: rows, hasMore: false };
}

/** The paging members of every list of svc's own (docs/design.md, "Pagination"), as the spec's records query has them. */
export interface PageLinks {
  /** Another page follows: ask again with next_cursor. */
  has_next_page: boolean;
  /** The next page's cursor; null at the end. */
  next_cursor: string | null;
}

/** A page's links: the cursor sealed after its last item when more follow. */
export function pageLinks<T>(page: { items: readonly T[]; hasMore: boolean }, seal: (last: T) => string): PageLinks {
  const last = page.items.at(-1);
  return page.hasMore && last !== undefined
    ? { has_next_page: true, next_cursor: seal(last) }
    : { has_next_page: false, next_cursor: null };
}
