import { useLayoutEffect, useRef } from 'react';
import { formatDateTime } from '../lib/format';
import { ErrorMessage } from './ErrorMessage';

/** What RefreshFailed needs of a query (TanStack Query's result). */
interface Refreshed {
  isRefetchError: boolean;
  isFetching: boolean;
  error: unknown;
  errorUpdatedAt: number;
  refetch: () => Promise<unknown>;
}

/**
 * A read made again in the background (the window focused again, a change's answer) that failed while the page kept
 * what it had: said above it, with a way to try again. The page stays as it was, forms and what is typed in them
 * included: a failed refresh takes nothing away (a page shows its error in place of its content only when it never
 * loaded, or when the service says the thing is gone: isGone).
 */
export function RefreshFailed({ what, queries }: { what: string; queries: readonly Refreshed[] }) {
  const failed = queries.find((query) => query.isRefetchError);
  if (!failed) return null;
  return <RefreshFailedNotice what={what} failed={failed} queries={queries} />;
}

function RefreshFailedNotice({
  what,
  failed,
  queries,
}: {
  what: string;
  failed: Refreshed;
  queries: readonly Refreshed[];
}) {
  const box = useRef<HTMLDivElement>(null);
  const trying = queries.some((query) => query.isFetching);
  // Gone (the read worked again) with the focus in it, on its Try again: the focus goes to the page's heading, not
  // to the page's body.
  useLayoutEffect(() => {
    const notice = box.current;
    return () => {
      if (notice?.contains(document.activeElement)) document.querySelector<HTMLElement>('h1')?.focus();
    };
  }, []);
  return (
    <div ref={box}>
      <ErrorMessage title={`${what} could not be read again: the page shows it as it was.`} error={failed.error}>
        {/* A new failure changes these words, and the alert says it again. */}
        <p className="notice-meta">Last tried {formatDateTime(new Date(failed.errorUpdatedAt).toISOString())}.</p>
        <button
          type="button"
          aria-disabled={trying || undefined}
          onClick={() => {
            if (!trying) void Promise.all(queries.map((query) => query.refetch()));
          }}
        >
          {trying ? 'Trying again…' : 'Try again'}
        </button>
      </ErrorMessage>
    </div>
  );
}
