/**
 * The paging members of a list answer: svc's own lists have both (`has_next_page`, and `next_cursor`, null at the
 * end: docs/design.md, "Pagination"), as the spec's records query does; the spec's field lists have next_cursor alone.
 */
export interface PageLinks {
  has_next_page?: boolean;
  next_cursor?: string | null;
}

/** The cursor of the page after `page`, or undefined at the end. */
export function nextCursorOf(page: PageLinks): string | undefined {
  if (page.has_next_page === false) return undefined;
  return page.next_cursor ?? undefined;
}

/** Follows next_cursor until the end, yielding each item once. */
export async function* paginate<T, Q>(
  fetchPage: (query: Q) => Promise<{ items: T[] } & PageLinks>,
  query: Q,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage({ ...query, ...(cursor ? { cursor } : {}) });
    yield* page.items;
    cursor = nextCursorOf(page);
  } while (cursor);
}

/**
 * A feed (it has no end: next_cursor is always given) until it has nothing more now: page after page while
 * `has_next_page`, handing on each page's next_cursor, the one to resume from.
 */
export async function* catchUp<T, Q>(
  fetchPage: (query: Q) => Promise<{ items: T[]; has_next_page: boolean; next_cursor: string }>,
  query: Q,
  onCursor?: (nextCursor: string) => void,
): AsyncGenerator<T, void, undefined> {
  let next = query;
  for (;;) {
    const page = await fetchPage(next);
    yield* page.items;
    onCursor?.(page.next_cursor);
    if (!page.has_next_page) return;
    next = { ...query, cursor: page.next_cursor };
  }
}
