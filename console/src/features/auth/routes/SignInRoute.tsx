import { Redirect, useLocation, useSearch } from 'wouter';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { useSession } from '../api/session';
import { SecondStepForm } from '../components/SecondStepForm';
import { SignInForm } from '../components/SignInForm';
import { safeNextPath } from '../next-path';

/**
 * Sign-in: the email and password, then for a user with two-step sign-in a passkey or a code (the same page: the
 * session says which step it is at, and which second factors the user has), or for a user whose account requires
 * it and who has not set it up, the set-up page.
 */
export function SignInRoute() {
  const session = useSession();
  const params = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const next = safeNextPath(params.get('next'));
  const nextQuery = next === '/' ? '' : `?next=${encodeURIComponent(next)}`;

  if (session.isPending) return <Loading label="Checking your session…" />;
  if (session.data?.step === 'SIGNED_IN') return <Redirect to={next} replace />;
  if (session.data?.step === 'MFA_ENROLMENT') return <Redirect to={`/two-step/set-up${nextQuery}`} replace />;

  if (session.data?.step === 'MFA_CODE') {
    return (
      <main className="page page-narrow" id="content">
        <p className="brand brand-standalone">svc console</p>
        <PageHeading title="Two-step sign-in" />
        <SecondStepForm
          factors={session.data.mfa_factors}
          onVerified={(verified) =>
            navigate(
              verified.used === 'RECOVERY_CODE'
                ? `/two-step?recovery_codes_left=${verified.recovery_codes_left}`
                : next,
              { replace: true },
            )
          }
        />
      </main>
    );
  }

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
      {/* The session answered says where to go: the page renders its next step from it. */}
      <SignInForm onSignedIn={(signedIn) => signedIn.step === 'SIGNED_IN' && navigate(next, { replace: true })} />
    </main>
  );
}
