import { SvcApiError, type MfaVerified } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { lockWait } from '../lock-wait';
import { useVerifyMfa } from '../api/mfa';
import { useSignOut } from '../api/session';

function failure(error: unknown): string {
  if (error instanceof SvcApiError) {
    if (error.error_code === 'INVALID_MFA_CODE') return 'That code did not work.';
    if (error.error_code === 'SIGN_IN_LOCKED') {
      const wait = lockWait(error);
      return `Too many wrong codes. Try again${wait ? ` in ${wait}` : ' later'}.`;
    }
  }
  return 'The code could not be checked.';
}

/**
 * The second step of a sign-in: the code the authenticator app shows, or (for a lost phone) a recovery code. The
 * service decides what the code is; the form only says which one it asks for.
 */
export function SecondStepForm({ onVerified }: { onVerified: (verified: MfaVerified) => void }) {
  const id = useId();
  const verify = useVerifyMfa();
  const signOut = useSignOut();
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate({ code: code.trim() }, { onSuccess: onVerified });
  };
  const switchKind = () => {
    setRecovery((r) => !r);
    setCode('');
    verify.reset();
  };

  return (
    <form className="form-stack" onSubmit={submit} aria-label="Two-step sign-in">
      <p>
        {recovery
          ? 'Enter one of the recovery codes you saved when you set up two-step sign-in. Each works once.'
          : 'Enter the 6-digit code your authenticator app shows for svc.'}
      </p>
      {verify.isError && (
        <ErrorMessage
          title={failure(verify.error)}
          error={verify.error}
          showMessage={!(verify.error instanceof SvcApiError && verify.error.error_code === 'SIGN_IN_LOCKED')}
        />
      )}
      <div className="field">
        <label htmlFor={`${id}-code`}>{recovery ? 'Recovery code' : 'Authentication code'}</label>
        <input
          id={`${id}-code`}
          key={recovery ? 'recovery' : 'totp'}
          autoComplete={recovery ? 'off' : 'one-time-code'}
          inputMode={recovery ? 'text' : 'numeric'}
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
      <div className="button-row">
        <button type="button" className="button-quiet" onClick={switchKind}>
          {recovery ? 'Use the code from your app instead' : 'Use a recovery code instead'}
        </button>
        <button type="button" className="button-quiet" disabled={signOut.isPending} onClick={() => signOut.mutate()}>
          Cancel and sign out
        </button>
      </div>
    </form>
  );
}
