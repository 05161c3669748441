import type { ReactNode } from 'react';
import { Redirect, useLocation, useSearch } from 'wouter';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { useSession } from '../api/session';
import { CurrentUserContext } from '../session-context';

/** Its pages for a signed-in user; anyone else is sent to sign in, and brought back here afterwards. */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const [location] = useLocation();
  const search = useSearch();
  if (session.isPending) return <Loading label="Checking your session…" />;
  if (session.isError) {
    return (
      <main className="page page-narrow" id="content">
        <ErrorMessage title="Your session could not be checked." error={session.error}>
          <button type="button" onClick={() => void session.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      </main>
    );
  }
  if (!session.data) {
    const here = `${location}${search ? `?${search}` : ''}`;
    return <Redirect to={here === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(here)}`} replace />;
  }
  return <CurrentUserContext.Provider value={session.data.user}>{children}</CurrentUserContext.Provider>;
}
