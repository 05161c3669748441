/** Keyset paging: the next page follows the last cursor; the previous one is the cursor before it. */
export function QueuePager({
  page,
  hasNext,
  busy,
  onPrevious,
  onNext,
}: {
  page: number;
  hasNext: boolean;
  busy: boolean;
  onPrevious: () => void;
  onNext: () => void;
}) {
  return (
    <nav className="pager" aria-label="Pages of records">
      <button type="button" disabled={page === 1 || busy} onClick={onPrevious}>
        Previous page
      </button>
      <span>Page {page}</span>
      <button type="button" disabled={!hasNext || busy} onClick={onNext}>
        Next page
      </button>
    </nav>
  );
}
