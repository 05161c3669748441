import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { PageHeading } from '../../../components/PageHeading';
import { SetPasswordForm } from '../components/SetPasswordForm';

/**
 * The one-time link's token is in the fragment (#token=…), which browsers never send to a server; it is read once
 * and taken out of the address bar and the history.
 */
function takeToken(): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  if (token) window.history.replaceState(window.history.state, '', window.location.pathname);
  return token;
}

export function SetPasswordRoute() {
  const [token] = useState(takeToken);
  const [, navigate] = useLocation();
  return (
    <main className="page page-narrow" id="content">
      <p className="brand brand-standalone">svc console</p>
      <PageHeading title="Set your password" />
      {token ? (
        <SetPasswordForm token={token} onDone={() => navigate('/sign-in?password=set', { replace: true })} />
      ) : (
        <div className="notice notice-error" role="alert">
          <p className="notice-title">This page needs the link you were given.</p>
          <p>Open the whole one-time link (it ends with #token=…), or ask an administrator for a new one.</p>
        </div>
      )}
      <p>
        <Link href="/sign-in">Back to sign in</Link>
      </p>
    </main>
  );
}
