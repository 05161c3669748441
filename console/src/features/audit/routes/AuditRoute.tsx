import type { AuditEvent } from '@svc/client';
import { useState, type FormEvent } from 'react';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { humanize } from '../../../lib/format';
import { useAuditLog, type AuditFilters } from '../api/audit';
import { AuditLogTable } from '../components/AuditLogTable';

type Action = AuditEvent['action'];

/** Every action of the audit log, to filter by (an action added to the API and not here fails the type check). */
const ACTIONS = [
  'user.created',
  'user.disabled',
  'user.password_reset',
  'user.mfa_reset',
  'user.passkey_added',
  'user.passkey_removed',
  'account.settings_changed',
  'account.required_coding_changed',
  'account.deleted',
  'coding_rule.created',
  'coding_rule.updated',
  'coding_rule.deleted',
  'coding_rule.applied',
  'api_client.created',
  'api_client.revoked',
  'api_client.secret_rotated',
  'api_client.scopes_changed',
  'api_client.renamed',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'integration.created',
  'integration.disconnected',
  'integration.reactivated',
  'connected_app.authorized',
  'connected_app.revoked',
] as const satisfies readonly Action[];
export const everyActionListed: Exclude<Action, (typeof ACTIONS)[number]> extends never ? true : false = true;

/** A date input's day as the start of that day in the browser's time zone, as RFC 3339. */
const dayStart = (day: string): string | undefined => (day ? new Date(`${day}T00:00:00`).toISOString() : undefined);
const dayAfter = (day: string): string | undefined => {
  if (!day) return undefined;
  const date = new Date(`${day}T00:00:00`);
  date.setDate(date.getDate() + 1);
  return date.toISOString();
};

/** The account's audit log (account admins): every administrative action, who, when, from where; read-only. */
export function AuditRoute() {
  const [form, setForm] = useState<{ action: Action | ''; target: string; from: string; to: string }>({
    action: '',
    target: '',
    from: '',
    to: '',
  });
  const [filters, setFilters] = useState<AuditFilters>({});
  const log = useAuditLog(filters);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters({
      ...(form.action ? { 'action[]': [form.action] } : {}),
      ...(form.target.trim() ? { target_id: form.target.trim() } : {}),
      ...(form.from ? { 'occurred_at[gte]': dayStart(form.from) } : {}),
      ...(form.to ? { 'occurred_at[lt]': dayAfter(form.to) } : {}),
    });
  };
  const items = log.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <>
      <PageHeading title="Audit log" />
      <p className="hint">
        Every administrative action on the account, newest first: users, API clients and their secrets, webhook
        endpoints, integrations, connected apps and settings. Nobody can change or delete an entry.
      </p>
      <form className="filters" role="search" aria-label="Filter the audit log" onSubmit={apply}>
        <div className="filters-grid">
          <div className="field">
            <label htmlFor="audit-action">Action</label>
            <select
              id="audit-action"
              value={form.action}
              onChange={(e) => setForm({ ...form, action: ACTIONS.find((a) => a === e.target.value) ?? '' })}
            >
              <option value="">Any action</option>
              {ACTIONS.map((action) => (
                <option key={action} value={action}>
                  {humanize(action.replace('.', ' '))}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="audit-target">On (id)</label>
            <input
              id="audit-target"
              value={form.target}
              onChange={(e) => setForm({ ...form, target: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="audit-from">From</label>
            <input
              id="audit-from"
              type="date"
              value={form.from}
              onChange={(e) => setForm({ ...form, from: e.target.value })}
            />
          </div>
          <div className="field">
            <label htmlFor="audit-to">To</label>
            <input
              id="audit-to"
              type="date"
              value={form.to}
              onChange={(e) => setForm({ ...form, to: e.target.value })}
            />
          </div>
        </div>
        <div className="button-row">
          <button type="submit" className="button-primary">
            Show
          </button>
        </div>
      </form>
      {log.isPending && <Loading label="Loading the audit log…" />}
      {log.isError && (
        <ErrorMessage title="The audit log could not be loaded." error={log.error}>
          <button type="button" onClick={() => void log.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {log.isSuccess && items.length === 0 && <EmptyState title="No action matches." />}
      {items.length > 0 && <AuditLogTable items={items} />}
      {log.hasNextPage && (
        <button type="button" disabled={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
          {log.isFetchingNextPage ? 'Loading…' : 'Show older entries'}
        </button>
      )}
    </>
  );
}
