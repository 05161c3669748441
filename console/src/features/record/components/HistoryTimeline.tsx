import type { RecordEvent } from '@svc/client';
import { formatDateTime, formatMoney, plural } from '../../../lib/format';
import { REVIEW_STATUS_LABELS, isReviewStatus } from '../../../lib/labels';
import type { Coding } from '../lines';

const EVENT_TITLES: Record<RecordEvent['type'], string> = {
  INGESTED: 'Created',
  IMPORTED: 'Imported',
  CODED: 'Coded',
  CODED_BY_RULES: 'Coded by rules',
  SPLIT: 'Line split',
  MERGED: 'Lines merged',
  MOVED: 'Moved',
  EXPORT_SUCCEEDED: 'Exported',
  EXPORT_FAILED: 'Export failed',
  RECEIPT_ATTACHED: 'Receipt attached',
  RECEIPT_REMOVED: 'Receipt removed',
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const stateName = (v: unknown) => (typeof v === 'string' && isReviewStatus(v) ? REVIEW_STATUS_LABELS[v] : String(v));

function codings(value: unknown): Coding[] {
  return Array.isArray(value)
    ? value.filter(
        (c): c is Coding => isObject(c) && typeof c.field_name === 'string' && typeof c.svc_field_id === 'string',
      )
    : [];
}

/** "GL Account: Travel → Meals", "GL Account: Travel (new)", "GL Account: Travel removed". */
function codingChanges(before: Coding[], after: Coding[]): string[] {
  const fieldIds = [...new Set([...before, ...after].map((c) => c.svc_field_id))];
  return fieldIds.flatMap((fieldId) => {
    const was = before.find((c) => c.svc_field_id === fieldId);
    const now = after.find((c) => c.svc_field_id === fieldId);
    if (was && now) {
      return was.svc_field_value_id === now.svc_field_value_id
        ? []
        : [`${now.field_name}: ${was.field_value_name} → ${now.field_value_name}`];
    }
    if (now) return [`${now.field_name} set to ${now.field_value_name}`];
    if (was) return [`${was.field_name} ${was.field_value_name} removed`];
    return [];
  });
}

function lineName(lineId: unknown, numbers: ReadonlyMap<string, number>): string {
  const number = typeof lineId === 'string' ? numbers.get(lineId) : undefined;
  return number === undefined ? 'A former line' : `Line ${number}`;
}

/** What an event changed, in words. */
function describe(event: RecordEvent, numbers: ReadonlyMap<string, number>): string[] {
  const c = event.changes;
  const moved = isObject(c.review_status)
    ? `${stateName(c.review_status.from)} → ${stateName(c.review_status.to)}`
    : null;
  switch (event.type) {
    case 'INGESTED':
    case 'IMPORTED':
      return [`In ${stateName(c.review_status)}`];
    case 'MOVED':
      return moved ? [moved] : [];
    case 'EXPORT_SUCCEEDED':
      return [
        ...(moved ? [moved] : []),
        ...(typeof c.reference_id === 'string' ? [`ERP reference ${c.reference_id}`] : []),
      ];
    case 'EXPORT_FAILED':
      return [...(moved ? [moved] : []), `The ERP said: ${String(c.error_message)}`];
    case 'CODED':
    case 'CODED_BY_RULES':
      return Array.isArray(c.lines)
        ? c.lines.filter(isObject).flatMap((line) => {
            const changes = codingChanges(codings(line.before), codings(line.after));
            return changes.length > 0 ? [`${lineName(line.line_id, numbers)}: ${changes.join('; ')}`] : [];
          })
        : [];
    case 'SPLIT':
      return [
        `${lineName(c.line_id, numbers)} split into ${Array.isArray(c.into) ? plural(c.into.length, 'line') : 'parts'}`,
      ];
    case 'MERGED': {
      const into = isObject(c.into) ? c.into : {};
      const amount = isObject(into.amount)
        ? formatMoney({ amount: Number(into.amount.amount), currency: String(into.amount.currency) })
        : null;
      return [
        `${Array.isArray(c.line_ids) ? plural(c.line_ids.length, 'line') : 'Lines'} merged into one${amount ? ` of ${amount}` : ''}`,
      ];
    }
    default:
      return [];
  }
}

function actorName(actor: RecordEvent['actor'], currentUserId: string): string {
  // The server names a user of the account; a user it cannot name any more is still told apart by id.
  if (actor.type === 'user') return actor.id === currentUserId ? 'you' : (actor.name ?? `user ${actor.id}`);
  if (actor.type === 'client') return `API client ${actor.id}`;
  return actor.id;
}

/** Every change of the record, oldest first: what, when, by whom. */
export function HistoryTimeline({
  events,
  numbers,
  currentUserId,
}: {
  events: RecordEvent[];
  numbers: ReadonlyMap<string, number>;
  currentUserId: string;
}) {
  return (
    <ol className="timeline">
      {events.map((event) => (
        <li key={event.event_id} className={`timeline-item timeline-${event.type.toLowerCase().replaceAll('_', '-')}`}>
          <p className="timeline-title">
            <strong>{EVENT_TITLES[event.type]}</strong>{' '}
            <span className="muted">
              version {event.version}, <time dateTime={event.occurred_at}>{formatDateTime(event.occurred_at)}</time>, by{' '}
              {actorName(event.actor, currentUserId)}
            </span>
          </p>
          {describe(event, numbers).map((line) => (
            <p key={line} className="timeline-detail">
              {line}
            </p>
          ))}
        </li>
      ))}
    </ol>
  );
}
