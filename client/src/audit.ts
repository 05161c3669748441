import { paginate } from './pages.js';
import type { RequestOptions, Transport } from './transport.js';
import type { AuditEvent, AuditEventPage, AuditEventQuery } from './types.js';

/**
 * The account's audit log (scope audit.read; an account admin's role has it): every administrative action, newest
 * first, who did it, when, from where, under which request, and what it did. Read-only: nothing writes to it but
 * the actions themselves.
 */
export function auditApi(http: Transport) {
  const list = (query: AuditEventQuery = {}, options?: RequestOptions) =>
    http.request<AuditEventPage>({ method: 'GET', path: '/internal/v1/audit-events', query, options });
  return {
    list,
    listAll: (query: Omit<AuditEventQuery, 'cursor'> = {}, options?: RequestOptions): AsyncGenerator<AuditEvent> =>
      paginate((q: AuditEventQuery) => list(q, options), query),
  };
}
