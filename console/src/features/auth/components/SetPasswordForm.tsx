import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useSetPassword } from '../api/session';

const MIN_LENGTH = 12;

/** A new password from a one-time link: typed twice, then set by the service (which checks it). */
export function SetPasswordForm({ token, onDone }: { token: string; onDone: () => void }) {
  const setPassword = useSetPassword();
  const [password, setPasswordText] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const passwordId = useId();
  const confirmId = useId();
  const hintId = useId();
  const mismatchId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (password !== confirm) {
      setMismatch(true);
      return;
    }
    setMismatch(false);
    setPassword.mutate({ token, password }, { onSuccess: onDone });
  };

  return (
    <form className="form-stack" onSubmit={submit} aria-label="Set your password">
      {setPassword.isError && <ErrorMessage title="Your password was not set." error={setPassword.error} />}
      <div className="field">
        <label htmlFor={passwordId}>New password</label>
        <input
          id={passwordId}
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_LENGTH}
          aria-describedby={hintId}
          value={password}
          onChange={(e) => setPasswordText(e.target.value)}
        />
        <p className="hint" id={hintId}>
          At least {MIN_LENGTH} characters, and not your email.
        </p>
      </div>
      <div className="field">
        <label htmlFor={confirmId}>Confirm new password</label>
        <input
          id={confirmId}
          type="password"
          autoComplete="new-password"
          required
          aria-invalid={mismatch || undefined}
          aria-describedby={mismatch ? mismatchId : undefined}
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
        />
        {mismatch && (
          <p className="field-error" id={mismatchId} role="alert">
            The two passwords do not match.
          </p>
        )}
      </div>
      <button type="submit" className="button-primary" disabled={setPassword.isPending}>
        {setPassword.isPending ? 'Setting your password…' : 'Set password'}
      </button>
    </form>
  );
}
