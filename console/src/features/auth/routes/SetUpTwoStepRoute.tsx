import { useId, useState } from 'react';
import { Redirect, useLocation, useSearch } from 'wouter';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { useSession } from '../api/session';
import { AddPasskeyForm } from '../components/AddPasskeyForm';
import { RecoveryCodesOnce } from '../components/RecoveryCodesOnce';
import { SignOutButton } from '../components/SignOutButton';
import { TotpSetup } from '../components/TotpSetup';
import { safeNextPath } from '../next-path';

/**
 * The set-up an account that requires two-step sign-in asks of a user who has not done it, at sign-in and before
 * anything else: the session calls nothing else until it is done (the service holds it to that).
 */
export function SetUpTwoStepRoute() {
  const id = useId();
  const session = useSession();
  const [, navigate] = useLocation();
  const next = safeNextPath(new URLSearchParams(useSearch()).get('next'));
  // Kept here once confirmed: the session is signed in by then, and the codes must still be shown, once.
  const [codes, setCodes] = useState<string[] | null>(null);

  if (codes) {
    return (
      <main className="page page-narrow" id="content">
        <p className="brand brand-standalone">svc console</p>
        <PageHeading title="Two-step sign-in is set up" />
        <RecoveryCodesOnce
          codes={codes}
          doneLabel="I have saved them: continue"
          onDone={() => navigate(next, { replace: true })}
        />
      </main>
    );
  }
  if (session.isPending) return <Loading label="Checking your session…" />;
  if (!session.data) return <Redirect to="/sign-in" replace />;
  if (session.data.step !== 'MFA_ENROLMENT') return <Redirect to={next} replace />;

  return (
    <main className="page page-narrow" id="content">
      <p className="brand brand-standalone">svc console</p>
      <PageHeading title="Set up two-step sign-in" />
      <p className="notice notice-info" role="status">
        Your account requires two-step sign-in. Set it up to continue, signed in as {session.data.user.email}.
      </p>
      <TotpSetup onConfirmed={setCodes} />
      <section className="card" aria-labelledby={`${id}-passkey`}>
        <h2 id={`${id}-passkey`}>Or add a passkey</h2>
        <p>
          A passkey (your laptop&apos;s or phone&apos;s screen lock, a password manager) or a security key (a YubiKey)
          answers the second step in place of a code: your browser asks for it.
        </p>
        <AddPasskeyForm
          onAdded={(registered) =>
            registered.recovery_codes ? setCodes(registered.recovery_codes) : navigate(next, { replace: true })
          }
        />
      </section>
      <p>
        <SignOutButton />
      </p>
    </main>
  );
}
