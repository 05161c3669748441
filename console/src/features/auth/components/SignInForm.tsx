import { SvcApiError, type ConsoleSession } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useSignIn } from '../api/session';
import { lockWait } from '../lock-wait';

function signInFailure(error: unknown): string {
  if (error instanceof SvcApiError) {
    if (error.error_code === 'INVALID_CREDENTIALS') return 'The email or password is incorrect.';
    if (error.error_code === 'SIGN_IN_LOCKED') {
      const wait = lockWait(error);
      return `Too many failed sign-in attempts. Signing in is blocked${wait ? ` for ${wait}` : ' for a while'}; try again later.`;
    }
  }
  return 'Signing in did not work.';
}

/** Email and password; the session answered goes to `onSignedIn` (signed in, or waiting for its second step). */
export function SignInForm({ onSignedIn }: { onSignedIn: (session: ConsoleSession) => void }) {
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
