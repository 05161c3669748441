import { SvcApiError, type MfaFactor, type MfaVerified } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { lockWait } from '../lock-wait';
import { useVerifyMfa } from '../api/mfa';
import { useVerifyPasskey } from '../api/passkeys';
import { useSignOut } from '../api/session';

type Kind = 'PASSKEY' | 'TOTP' | 'RECOVERY_CODE';

function failure(error: unknown, kind: Kind): string {
  if (error instanceof SvcApiError) {
    if (error.error_code === 'INVALID_MFA_CODE') return 'That code did not work.';
    if (error.error_code === 'INVALID_PASSKEY') return 'That passkey did not work.';
    if (error.error_code === 'SIGN_IN_LOCKED') {
      const wait = lockWait(error);
      const what = kind === 'PASSKEY' ? 'failed attempts' : 'wrong codes';
      return `Too many ${what}. Try again${wait ? ` in ${wait}` : ' later'}.`;
    }
  }
  if (kind === 'PASSKEY') return 'No passkey was used: the request was cancelled, or took too long.';
  return 'The code could not be checked.';
}

const SWITCH_LABEL: Record<Kind, string> = {
  PASSKEY: 'Use a passkey instead',
  TOTP: 'Use the code from your app instead',
  RECOVERY_CODE: 'Use a recovery code instead',
};

/**
 * The second step of a sign-in: one of the user's passkeys, the code the authenticator app shows, or (for a lost
 * phone or key) a recovery code; `factors` (the session's) says which the user has. The service decides what a
 * code is; the form only says which one it asks for.
 */
export function SecondStepForm({
  factors,
  onVerified,
}: {
  factors: readonly MfaFactor[] | undefined;
  onVerified: (verified: MfaVerified) => void;
}) {
  const id = useId();
  const verify = useVerifyMfa();
  const passkey = useVerifyPasskey();
  const signOut = useSignOut();
  // A session that does not say (an older service) is asked for a code, as before passkeys.
  const offered: Kind[] = factors?.length ? [...factors] : ['TOTP', 'RECOVERY_CODE'];
  const [kind, setKind] = useState<Kind>(offered[0]!);
  const [code, setCode] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate({ code: code.trim() }, { onSuccess: onVerified });
  };
  const switchTo = (next: Kind) => {
    setKind(next);
    setCode('');
    verify.reset();
    passkey.reset();
  };
  const current = kind === 'PASSKEY' ? passkey : verify;
  const failed = current.isError && (
    <ErrorMessage
      title={failure(current.error, kind)}
      error={current.error}
      showMessage={current.error instanceof SvcApiError && current.error.error_code !== 'SIGN_IN_LOCKED'}
    />
  );

  const otherWays = (
    <div className="button-row">
      {offered
        .filter((other) => other !== kind)
        .map((other) => (
          <button key={other} type="button" className="button-quiet" onClick={() => switchTo(other)}>
            {SWITCH_LABEL[other]}
          </button>
        ))}
      <button type="button" className="button-quiet" disabled={signOut.isPending} onClick={() => signOut.mutate()}>
        Cancel and sign out
      </button>
    </div>
  );

  if (kind === 'PASSKEY') {
    return (
      <div className="form-stack" role="group" aria-label="Two-step sign-in">
        <p>Use the passkey or security key you added: your browser asks for it.</p>
        {failed}
        <button
          type="button"
          className="button-primary"
          disabled={passkey.isPending}
          onClick={() => passkey.mutate(undefined, { onSuccess: onVerified })}
        >
          {passkey.isPending ? 'Waiting for your passkey…' : 'Use a passkey'}
        </button>
        {otherWays}
      </div>
    );
  }
  return (
    <form className="form-stack" onSubmit={submit} aria-label="Two-step sign-in">
      <p>
        {kind === 'RECOVERY_CODE'
          ? 'Enter one of the recovery codes you saved when you set up two-step sign-in. Each works once.'
          : 'Enter the 6-digit code your authenticator app shows for svc.'}
      </p>
      {failed}
      <div className="field">
        <label htmlFor={`${id}-code`}>{kind === 'RECOVERY_CODE' ? 'Recovery code' : 'Authentication code'}</label>
        <input
          id={`${id}-code`}
          key={kind}
          autoComplete={kind === 'RECOVERY_CODE' ? 'off' : 'one-time-code'}
          inputMode={kind === 'RECOVERY_CODE' ? 'text' : 'numeric'}
          spellCheck={false}
          required
          autoFocus
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      </div>
      <button type="submit" className="button-primary" disabled={verify.isPending}>
        {verify.isPending ? 'Checking…' : 'Verify'}
      </button>
      {otherWays}
    </form>
  );
}
