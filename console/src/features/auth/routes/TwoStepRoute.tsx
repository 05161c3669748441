import { useId, useState, type FormEvent } from 'react';
import { useSearch } from 'wouter';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { plural } from '../../../lib/format';
import { useMfaStatus, useRenewRecoveryCodes } from '../api/mfa';
import { PasskeysSection } from '../components/PasskeysSection';
import { RecoveryCodesOnce } from '../components/RecoveryCodesOnce';
import { TotpSetup } from '../components/TotpSetup';

/** New recovery codes, for a current code of the app (a session alone cannot have them). */
function RenewRecoveryCodes({ onRenewed }: { onRenewed: (codes: string[]) => void }) {
  const id = useId();
  const renew = useRenewRecoveryCodes();
  const [code, setCode] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    renew.mutate({ code: code.trim() }, { onSuccess: (answer) => onRenewed(answer.recovery_codes) });
  };
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>New recovery codes</h2>
      <form className="form-stack" onSubmit={submit} aria-label="New recovery codes">
        <p>The codes you have now stop working.</p>
        {renew.isError && <ErrorMessage title="No new recovery codes were made." error={renew.error} />}
        <div className="field">
          <label htmlFor={`${id}-code`}>Code from the app</label>
          <input
            id={`${id}-code`}
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </div>
        <button type="submit" disabled={renew.isPending}>
          {renew.isPending ? 'Making new codes…' : 'Make new recovery codes'}
        </button>
      </form>
    </section>
  );
}

/**
 * The signed-in user's two-step sign-in: an authenticator app (set it up, make new recovery codes) and passkeys
 * (add, remove); how many recovery codes are left.
 */
export function TwoStepRoute() {
  const status = useMfaStatus();
  const left = new URLSearchParams(useSearch()).get('recovery_codes_left');
  const [codes, setCodes] = useState<string[] | null>(null);
  const data = status.data;
  const enrolled = data ? data.totp_enrolled || data.passkeys > 0 : false;

  return (
    <>
      <PageHeading title="Two-step sign-in" />
      {left !== null && (
        <p className="notice notice-warning" role="status">
          You signed in with a recovery code: it is used up. {plural(Number(left), 'recovery code')} left.
        </p>
      )}
      {codes && <RecoveryCodesOnce codes={codes} doneLabel="I have saved them" onDone={() => setCodes(null)} />}
      {!codes && status.isPending && <Loading label="Loading your two-step sign-in…" />}
      {!codes && status.isError && (
        <ErrorMessage title="Your two-step sign-in could not be loaded." error={status.error}>
          <button type="button" onClick={() => void status.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {!codes && data && !enrolled && (
        <p>
          {data.required_by_account
            ? 'Your account requires two-step sign-in.'
            : 'Two-step sign-in is off: your password alone signs you in.'}{' '}
          Set up an authenticator app, or add a passkey.
        </p>
      )}
      {!codes && data && enrolled && (
        <>
          <p className="notice notice-success">
            Two-step sign-in is on: after your password, sign-in asks for{' '}
            {data.totp_enrolled && data.passkeys > 0
              ? 'the code of your authenticator app or one of your passkeys'
              : data.totp_enrolled
                ? 'the code of your authenticator app'
                : 'one of your passkeys'}
            . {plural(data.recovery_codes_left, 'recovery code')} left.
          </p>
          <p className="hint">
            Lost your phone or key? Sign in with a recovery code, or ask an account admin to reset two-step sign-in.
          </p>
        </>
      )}
      {!codes && data && (
        <>
          <PasskeysSection onAdded={(registered) => registered.recovery_codes && setCodes(registered.recovery_codes)} />
          {data.totp_enrolled ? <RenewRecoveryCodes onRenewed={setCodes} /> : <TotpSetup onConfirmed={setCodes} />}
        </>
      )}
    </>
  );
}
