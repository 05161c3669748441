/** Follows next_cursor until the end, yielding each item once. */
export async function* paginate<T, Q>(
  fetchPage: (query: Q) => Promise<{ items: T[]; next_cursor?: string | null }>,
  query: Q,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage({ ...query, ...(cursor ? { cursor } : {}) });
    yield* page.items;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}
