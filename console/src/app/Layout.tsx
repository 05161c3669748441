import type { ReactNode } from 'react';
import { useSessionScopes } from '../features/auth/api/session';
import { Link, useRoute } from 'wouter';
import { SignOutButton } from '../features/auth/components/SignOutButton';
import { canManageClients, canReadAudit, canReview, useCurrentUser } from '../features/auth/session-context';
import { canSeeRules } from '../features/coding-rules/roles';
import { ExportsNavItem } from '../features/exports/components/ExportsNavItem';
import { canSeeSettings } from '../features/settings/roles';
import { canManageWebhooks } from '../features/webhooks/event-types';
import { humanize } from '../lib/format';

function NavLink({ href, pattern, children }: { href: string; pattern: string; children: ReactNode }) {
  const [active] = useRoute(pattern);
  return (
    <Link href={href} className="nav-link" aria-current={active ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/** The frame of every signed-in page: a skip link, the header (navigation, who is signed in, sign out), the page. */
export function Layout({ children }: { children: ReactNode }) {
  const user = useCurrentUser();
  const scopes = useSessionScopes();
  return (
    <>
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="app-header">
        <Link href="/" className="brand">
          svc console
        </Link>
        <nav aria-label="Main">
          <ul className="nav-list">
            <li>
              <NavLink href="/" pattern="/">
                Overview
              </NavLink>
            </li>
            <li>
              <NavLink href="/queue" pattern="/queue">
                Review queue
              </NavLink>
            </li>
            {canReview(scopes) && (
              <li>
                <NavLink href="/coding-grid" pattern="/coding-grid">
                  Coding grid
                </NavLink>
              </li>
            )}
            <ExportsNavItem>
              <NavLink href="/exports" pattern="/exports">
                Export
              </NavLink>
            </ExportsNavItem>
            <li>
              <NavLink href="/fields" pattern="/fields/*?">
                Fields
              </NavLink>
            </li>
            {canSeeRules(scopes) && (
              <li>
                <NavLink href="/coding-rules" pattern="/coding-rules/*?">
                  Coding rules
                </NavLink>
              </li>
            )}
            <li>
              <NavLink href="/integrations" pattern="/integrations">
                Integrations
              </NavLink>
            </li>
            {canManageClients(scopes) && (
              <li>
                <NavLink href="/api-clients" pattern="/api-clients">
                  API clients
                </NavLink>
              </li>
            )}
            {canManageClients(scopes) && (
              <li>
                <NavLink href="/users" pattern="/users">
                  Users
                </NavLink>
              </li>
            )}
            {canManageClients(scopes) && (
              <li>
                <NavLink href="/connected-apps" pattern="/connected-apps">
                  Connected apps
                </NavLink>
              </li>
            )}
            {canManageWebhooks(scopes) && (
              <li>
                <NavLink href="/webhooks" pattern="/webhooks/*?">
                  Webhooks
                </NavLink>
              </li>
            )}
            {canSeeSettings(scopes) && (
              <li>
                <NavLink href="/settings" pattern="/settings">
                  Settings
                </NavLink>
              </li>
            )}
            {canReadAudit(scopes) && (
              <li>
                <NavLink href="/audit" pattern="/audit">
                  Audit log
                </NavLink>
              </li>
            )}
          </ul>
        </nav>
        <div className="header-user">
          <span>
            <span className="visually-hidden">Signed in as </span>
            {user.email} <span className="role">({humanize(user.role)})</span>
          </span>
          <Link href="/two-step" className="nav-link">
            Two-step sign-in
          </Link>
          <SignOutButton />
        </div>
      </header>
      <main className="page" id="content" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
