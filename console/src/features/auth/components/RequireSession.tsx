import type { ReactNode } from 'react';
import { Redirect, useLocation, useSearch } from 'wouter';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { useSession } from '../api/session';
import { CurrentUserContext } from '../session-context';

/**
 * Its pages for a signed-in user; anyone else is sent to sign in (or to finish signing in), and brought back here
 * afterwards.
 */
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
  if (!session.data || session.data.step !== 'SIGNED_IN') {
    // Not signed in, or halfway: the sign-in page asks for the code; a set-up the account requires comes first.
    const here = `${location}${search ? `?${search}` : ''}`;
    const next = here === '/' ? '' : `?next=${encodeURIComponent(here)}`;
    const to = session.data?.step === 'MFA_ENROLMENT' ? '/two-step/set-up' : '/sign-in';
    return <Redirect to={`${to}${next}`} replace />;
  }
  return <CurrentUserContext.Provider value={session.data.user}>{children}</CurrentUserContext.Provider>;
}
