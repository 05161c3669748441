import { shownError } from '../../../lib/errors';
import { useSignOut } from '../api/session';

export function SignOutButton() {
  const signOut = useSignOut();
  const failure = signOut.isError ? shownError(signOut.error) : null;
  return (
    <>
      <button type="button" className="button-quiet" disabled={signOut.isPending} onClick={() => signOut.mutate()}>
        Sign out
      </button>
      {failure && (
        <span role="alert" className="header-error">
          Sign-out failed: {failure.message}
          {failure.requestId && ` (request id ${failure.requestId})`}
        </span>
      )}
    </>
  );
}
