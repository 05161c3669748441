import { ErrorMessage } from './ErrorMessage';

/** What RefreshFailed needs of a query (TanStack Query's result). */
interface Refreshed {
  isRefetchError: boolean;
  error: unknown;
  refetch: () => Promise<unknown>;
}

/**
 * A read made again in the background (the window focused again, a change's answer) that failed while the page kept
 * what it had: said above it, with a way to try again. The page stays as it was, forms and what is typed in them
 * included: a failed refresh takes nothing away (a page shows its error in place of its content only when it never
 * loaded, `query.data === undefined`).
 */
export function RefreshFailed({ what, queries }: { what: string; queries: readonly Refreshed[] }) {
  const failed = queries.find((query) => query.isRefetchError);
  if (!failed) return null;
  return (
    <ErrorMessage title={`${what} could not be read again: the page shows it as it was.`} error={failed.error}>
      <button type="button" onClick={() => void Promise.all(queries.map((query) => query.refetch()))}>
        Try again
      </button>
    </ErrorMessage>
  );
}
