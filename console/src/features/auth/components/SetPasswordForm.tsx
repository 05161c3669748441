import { SvcApiError } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useSetPassword } from '../api/session';

/** The service's minimum (it checks everything else too: docs/console.md, "Passwords"). */
const MIN_LENGTH = 15;

/** What the service said of the password itself (too short, too easy to guess and why): shown at the field. */
function passwordProblem(error: unknown): string | null {
  if (!(error instanceof SvcApiError) || error.error_code !== 'INVALID_REQUEST') return null;
  const problems = error.details?.errors;
  if (!Array.isArray(problems)) return null;
  for (const problem of problems as unknown[]) {
    if (typeof problem === 'object' && problem !== null && 'path' in problem && 'message' in problem) {
      if (problem.path === '/password' && typeof problem.message === 'string') return `The password ${problem.message}`;
    }
  }
  return null;
}

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
  const problemId = useId();
  const problem = setPassword.isError ? passwordProblem(setPassword.error) : null;

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
      {setPassword.isError && (
        <ErrorMessage title="Your password was not set." error={setPassword.error} showMessage={problem === null} />
      )}
      <div className="field">
        <label htmlFor={passwordId}>New password</label>
        <input
          id={passwordId}
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_LENGTH}
          aria-invalid={problem !== null || undefined}
          aria-describedby={problem ? `${problemId} ${hintId}` : hintId}
          value={password}
          onChange={(e) => setPasswordText(e.target.value)}
        />
        {problem && (
          <p className="field-error" id={problemId}>
            {problem}
          </p>
        )}
        <p className="hint" id={hintId}>
          At least {MIN_LENGTH} characters; spaces and any characters are welcome. A few unrelated words make a strong
          password that is easy to remember. Common passwords, repeated or keyboard patterns, names and dates alone, and
          your email are refused.
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
