import { Redirect, useLocation, useSearch } from 'wouter';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { useSession } from '../api/session';
import { SignInForm } from '../components/SignInForm';
import { safeNextPath } from '../next-path';

export function SignInRoute() {
  const session = useSession();
  const params = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const next = safeNextPath(params.get('next'));

  if (session.isPending) return <Loading label="Checking your session…" />;
  if (session.data) return <Redirect to={next} replace />;

  return (
    <main className="page page-narrow" id="content">
      <p className="brand brand-standalone">svc console</p>
      <PageHeading title="Sign in" />
      {params.get('password') === 'set' && (
        <p className="notice notice-success" role="status">
          Your password is set. Sign in with it.
        </p>
      )}
      {params.get('signed_out') && (
        <p className="notice notice-info" role="status">
          You are signed out.
        </p>
      )}
      {params.get('next') && !params.get('signed_out') && (
        <p className="notice notice-info" role="status">
          Sign in to continue.
        </p>
      )}
      <SignInForm onSignedIn={() => navigate(next, { replace: true })} />
    </main>
  );
}
