import type { Static } from 'typebox';
import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { pageLinks, pageOf, type PageLinks } from '../../lib/pagination.js';
import type { AuthContext, Caller } from '../auth/auth.service.js';
import { userNamesService } from '../users/user-names.service.js';
import { eventsService, type NewAccountEvent } from '../webhooks/events.service.js';
import { accountingRepository } from './accounting.repository.js';
import { historyRepository } from './history.repository.js';
import type { LastExportResult } from './accounting.tables.js';
import type { AccountingFieldValue } from './ledger.js';
import { EXPORTABLE, type ReviewStatus } from './lifecycle.js';
import type { Money } from './money.js';
import { RecordEventShape } from './review.schemas.js';

type RecordEventDto = Static<typeof RecordEventShape.schema>;

/**
 * Every change of a record is kept as an event: the version it produced, when, who, and what changed. Events are
 * written in the transaction of the change they describe (no change without its event, no event without its
 * change); docs/accounting.md lists the types and their `changes`.
 */

/** A review move, as a change records it. */
export interface StatusMove {
  from: ReviewStatus;
  to: ReviewStatus;
}

/** A line's part, as split and merge record it. */
interface LinePart {
  line_id: string;
  amount: Money;
  accounting_field_values: AccountingFieldValue[];
}

/** Which rule, at which version, set a line's value of a field (or its memo): named by each change rules make. */
export type RuleCoding = { line_id: string; rule_id: string; rule_version: number } & (
  { field_id: string; svc_id: string } | { memo: string }
);

/** A suggested value accepted onto a line (docs/suggestions.md): named by the CODED change that set it. */
export interface AcceptedSuggestion {
  line_id: string;
  field_id: string;
  svc_id: string;
  confidence: number;
  signal: string;
  reason: string;
}

/**
 * What each kind of change records (the `changes` of a record's history, docs/accounting.md): one union, so that
 * what a change announces (accountEventOf) follows from its type, without reading its changes back.
 */
export type RecordChange =
  | { type: 'INGESTED' | 'IMPORTED'; changes: { review_status: ReviewStatus; coded_by_rules?: RuleCoding[] } }
  | { type: 'MOVED'; changes: { review_status: StatusMove; auto_submitted?: true } }
  | {
      type: 'EXPORT_SUCCEEDED';
      changes: { review_status: StatusMove; reference_id: string | null; deep_link_url: string | null };
    }
  | { type: 'EXPORT_FAILED'; changes: { review_status: StatusMove; error_message: string | null } }
  | {
      type: 'CODED';
      changes: {
        lines: { line_id: string; before: AccountingFieldValue[]; after: AccountingFieldValue[] }[];
        /** Present when the coding was suggestions accepted: each value set, and why it was suggested. */
        accepted_suggestions?: AcceptedSuggestion[];
      };
    }
  | {
      type: 'CODED_BY_RULES';
      changes: {
        lines: { line_id: string; before: AccountingFieldValue[]; after: AccountingFieldValue[] }[];
        memos: { line_id: string; before: string | null; after: string }[];
        coded_by_rules: RuleCoding[];
      };
    }
  | { type: 'SPLIT'; changes: { line_id: string; amount: Money; into: LinePart[] } }
  | { type: 'MERGED'; changes: { line_ids: string[]; into: LinePart } }
  | { type: 'RECEIPT_ATTACHED' | 'RECEIPT_REMOVED'; changes: { receipt_id: string } };

export type RecordEvent = RecordChange & {
  recordId: string;
  /** The version the change produced. */
  version: number;
  /** microseconds: the record's updated_at after the change */
  occurredAt: number;
  /** An imported record's past (its export already reported): kept, never announced. */
  historic?: true;
};

/**
 * The event of an export report: EXPORT_SUCCEEDED with its reference, or EXPORT_FAILED with its message; the record
 * moved from READY_FOR_EXPORT to `to`. `event` says which record, its version, when, and whether it is history.
 */
export function exportReported(
  event: Pick<RecordEvent, 'recordId' | 'version' | 'occurredAt' | 'historic'>,
  to: ReviewStatus,
  report: Omit<LastExportResult, 'reported_at'>,
): RecordEvent {
  const review_status = { from: EXPORTABLE, to };
  return report.status === 'SUCCESS'
    ? {
        ...event,
        type: 'EXPORT_SUCCEEDED',
        changes: { review_status, reference_id: report.reference_id, deep_link_url: report.deep_link_url },
      }
    : { ...event, type: 'EXPORT_FAILED', changes: { review_status, error_message: report.error_message } };
}

/**
 * The account event (webhooks and the event feed) a record event announces, if any: became ready for export,
 * exported, export failed, re-opened after export. Seeded history (IMPORTED, and an imported record's export)
 * announces nothing: it is not a change happening now.
 */
function accountEventOf(e: RecordEvent): NewAccountEvent | null {
  if (e.historic) return null;
  const record = { recordId: e.recordId, version: e.version, occurredAt: e.occurredAt };
  switch (e.type) {
    case 'INGESTED':
      return e.changes.review_status === 'READY_FOR_EXPORT'
        ? { type: 'accounting_record.ready_for_export', ...record }
        : null;
    case 'MOVED':
      if (e.changes.review_status.to === 'READY_FOR_EXPORT') {
        return { type: 'accounting_record.ready_for_export', ...record };
      }
      return e.changes.review_status.from === 'EXPORTED' ? { type: 'accounting_record.reopened', ...record } : null;
    case 'EXPORT_SUCCEEDED':
      return { type: 'accounting_record.exported', ...record };
    case 'RECEIPT_ATTACHED':
      return { type: 'accounting_record.receipt_attached', ...record, receiptId: e.changes.receipt_id };
    case 'EXPORT_FAILED':
      return { type: 'accounting_record.export_failed', ...record, errorMessage: e.changes.error_message ?? '' };
    default:
      return null;
  }
}

/**
 * Writes the events of one change (or one batch of changes) by `caller`, in the caller's transaction, and the
 * account events they announce (every change of a record comes through here, so none is missed). Called last in
 * the transaction: the account's event counter stays locked until the commit.
 */
export async function recordEvents(ex: Executor, caller: Caller, events: readonly RecordEvent[]): Promise<void> {
  await historyRepository.insertMany(
    ex,
    events.map((e) => ({
      account_id: caller.accountId,
      record_id: e.recordId,
      version: e.version,
      event_id: newId('accrev'),
      type: e.type,
      actor_type: caller.actor.type,
      actor_id: caller.actor.id,
      occurred_at: e.occurredAt,
      changes_json: JSON.stringify(e.changes),
    })),
  );
  await eventsService.emit(
    ex,
    caller,
    events.map(accountEventOf).filter((e) => e !== null),
  );
}

export const historyService = {
  /**
   * A record's events in version order, a page at a time; 404 for a record the account does not have. A user's
   * event names them (actor.name) while they are a user of the account.
   */
  async page(
    ex: Executor,
    auth: AuthContext,
    recordId: string,
    query: { cursor?: string; limit?: number },
  ): Promise<{ items: RecordEventDto[] } & PageLinks> {
    if (!(await accountingRepository.find(ex, auth.accountId, recordId))) {
      throw errors.notFound(`Accounting record ${recordId}`, { accounting_record_id: recordId });
    }
    const binding = { record_id: recordId };
    let after = 0;
    if (query.cursor) {
      const [version] = openCursor(auth.cursorKey, 'record_history', binding, query.cursor);
      if (typeof version !== 'number') throw errors.invalidCursor();
      after = version;
    }
    const limit = query.limit ?? 100;
    const page = pageOf(await historyRepository.page(ex, auth.accountId, recordId, after, limit), limit);
    const userIds = page.items.filter((row) => row.actor_type === 'user').map((row) => row.actor_id);
    const names = await userNamesService.namesOf(ex, auth.accountId, userIds);
    return {
      items: page.items.map((row) => {
        const event = RecordEventShape.toObject(row, undefined);
        const name = event.actor.type === 'user' ? names.get(event.actor.id) : undefined;
        return name === undefined ? event : { ...event, actor: { ...event.actor, name } };
      }),
      ...pageLinks(page, (last) => sealCursor(auth.cursorKey, 'record_history', binding, [last.version])),
    };
  },
};
