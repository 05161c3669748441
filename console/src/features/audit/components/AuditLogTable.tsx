import type { AuditEvent } from '@svc/client';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatDateTime, humanize } from '../../../lib/format';

const ACTORS: Record<AuditEvent['actor']['type'], string> = {
  user: 'User',
  client: 'API client',
  system: 'Operator (svc)',
};

/** Who acted: a user by name (their email); one the account no longer has, and clients, by their id. */
function ActorCell({ actor }: { actor: AuditEvent['actor'] }) {
  if (actor.type === 'user' && actor.name !== undefined) return <>{actor.name}</>;
  return (
    <>
      {actor.type === 'user' ? 'A user no longer in the account' : ACTORS[actor.type]} <code>{actor.id}</code>
    </>
  );
}

/** What an action did, in a line: its details as `name: value` pairs (never a secret: the server records none). */
function detailsText(details: AuditEvent['details']): string {
  return Object.entries(details)
    .map(([name, value]) => `${humanize(name)}: ${Array.isArray(value) ? value.join(', ') || '—' : String(value)}`)
    .join('; ');
}

/** The audit log: when, who, what, on what, from where; newest first. */
export function AuditLogTable({ items }: { items: AuditEvent[] }) {
  return (
    <ScrollRegion label="Audit log">
      <table className="data-table">
        <caption className="visually-hidden">Administrative actions on the account, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">By</th>
            <th scope="col">On</th>
            <th scope="col">From</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {items.map((event) => (
            <tr key={event.id}>
              <td className="nowrap">{formatDateTime(event.occurred_at)}</td>
              <th scope="row">{humanize(event.action.replace('.', ' '))}</th>
              <td>
                <ActorCell actor={event.actor} />
              </td>
              <td>
                {humanize(event.target.type)} <code>{event.target.id}</code>
              </td>
              <td>{event.address ?? '—'}</td>
              <td>{detailsText(event.details)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
