import { useState } from 'react';
import { useSessionScopes } from '../../auth/api/session';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { canManageClients, useCurrentUser } from '../../auth/session-context';
import { useAccountUserSettings, useConsoleUsers } from '../api/users';
import { RequireMfaSetting } from '../components/RequireMfaSetting';
import { UsersTable } from '../components/UsersTable';

function UsersScreen({ selfId }: { selfId: string }) {
  const users = useConsoleUsers();
  const settings = useAccountUserSettings();
  const [reset, setReset] = useState<string | null>(null);
  return (
    <>
      {settings.isPending && <Loading label="Loading the account's settings…" />}
      {settings.isError && <ErrorMessage title="The account's settings could not be loaded." error={settings.error} />}
      {settings.data && <RequireMfaSetting settings={settings.data} />}
      <section aria-labelledby="users-title">
        <h2 id="users-title">Users of the account</h2>
        {reset && (
          <p className="notice notice-success" role="status">
            Two-step sign-in of {reset} is reset: they are signed out, and sign in with their password alone.
          </p>
        )}
        {users.isPending && <Loading label="Loading users…" />}
        {users.isError && (
          <ErrorMessage title="The users could not be loaded." error={users.error}>
            <button type="button" onClick={() => void users.refetch()}>
              Try again
            </button>
          </ErrorMessage>
        )}
        {users.data && <UsersTable users={users.data.items} selfId={selfId} onReset={setReset} />}
      </section>
    </>
  );
}

/** The account's console users and their two-step sign-in (account admins). New users come from `svc users`. */
export function UsersRoute() {
  const user = useCurrentUser();
  const scopes = useSessionScopes();
  return (
    <>
      <PageHeading title="Users" />
      <p className="hint">
        People who sign in to this console. An operator adds them with <code>svc users create</code>.
      </p>
      {canManageClients(scopes) ? (
        <UsersScreen selfId={user.user_id} />
      ) : (
        <p className="notice notice-info">Only an account admin manages the account&rsquo;s users.</p>
      )}
    </>
  );
}
