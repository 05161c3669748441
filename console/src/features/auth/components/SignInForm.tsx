import { SvcApiError } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { plural } from '../../../lib/format';
import { useSignIn } from '../api/session';

/** "15 minutes" from a SIGN_IN_LOCKED answer's retry_after_seconds. */
function lockWait(error: SvcApiError): string | null {
  const seconds = error.details?.retry_after_seconds;
  if (typeof seconds !== 'number' || seconds <= 0) return null;
  return seconds < 90 ? plural(Math.ceil(seconds), 'second') : plural(Math.ceil(seconds / 60), 'minute');
}

function signInFailure(error: unknown): string {
  if (error instanceof SvcApiError) {
    if (error.error_code === 'INVALID_CREDENTIALS') return 'The email or password is incorrect.';
    if (error.error_code === 'SIGN_IN_LOCKED') {
      const wait = lockWait(error);
      return `Too many failed sign-ins for this user. Signing in is blocked${wait ? ` for ${wait}` : ' for a while'}; try again later.`;
    }
  }
  return 'Signing in did not work.';
}

export function SignInForm({ onSignedIn }: { onSignedIn: () => void }) {
  const signIn = useSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const emailId = useId();
  const passwordId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email: email.trim(), password }, { onSuccess: onSignedIn });
  };

  return (
    <form className="form-stack" onSubmit={submit} aria-label="Sign in">
      {signIn.isError && (
        <ErrorMessage
          title={signInFailure(signIn.error)}
          error={signIn.error}
          showMessage={!(signIn.error instanceof SvcApiError && signIn.error.error_code === 'SIGN_IN_LOCKED')}
        />
      )}
      <div className="field">
        <label htmlFor={emailId}>Email</label>
        <input
          id={emailId}
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={passwordId}>Password</label>
        <input
          id={passwordId}
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </div>
      <button type="submit" className="button-primary" disabled={signIn.isPending}>
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
