import { SvcApiError } from '@svc/client';
import { useRef, type ReactNode } from 'react';
import { PageHeading } from '../../../components/PageHeading';
import { useSessionScopes } from '../../auth/api/session';
import { recordProblems } from '../../../lib/errors';
import { formatMoney } from '../../../lib/format';
import { recordTitle } from '../../../lib/labels';
import { useCurrentUser } from '../../auth/session-context';
import { canManageRules } from '../../coding-rules/roles';
import { useConflictChanges } from '../api/conflict';
import type { RecordViews } from '../api/record';
import { CodingCard } from '../components/CodingCard';
import { LastExportResult } from '../components/LastExportResult';
import { LineItemsTable } from '../components/LineItemsTable';
import { RecordHeader } from '../components/RecordHeader';
import { ReceiptsSection } from '../components/ReceiptsSection';
import { RecordHistory } from '../components/RecordHistory';
import { ReviewSection } from '../components/ReviewSection';
import { SplitMergeSection } from '../components/SplitMergeSection';
import { VersionConflictNotice } from '../components/VersionConflictNotice';
import { useRecordChanges } from './use-record-changes';

/**
 * Every version of the record this page has shown, by version: a version conflict is told against the version the
 * user edited, which the page may have read anew since (in the background) while the edits stayed on the old one.
 */
function useSeenVersions(views: RecordViews): ReadonlyMap<number, RecordViews> {
  const seen = useRef(new Map<number, RecordViews>());
  if (!seen.current.has(views.record.version)) seen.current.set(views.record.version, views);
  return seen.current;
}

/** The version a refused change was sent at, as the service says it (details.expected_version of one record). */
function editedVersion(error: unknown): number | undefined {
  if (!(error instanceof SvcApiError)) return undefined;
  const expected = error.details?.expected_version;
  return typeof expected === 'number' ? expected : undefined;
}

interface RecordPageProps {
  id: string;
  views: RecordViews;
  onReload: () => Promise<{ isError: boolean }>;
  /** Said under the header when the record could not be read again in the background (the page stays as it was). */
  refreshFailed?: ReactNode;
  /** Unsaved coding: RecordRoute guards every way out while there is some. */
  dirty: boolean;
  onDirtyChange: (dirty: boolean) => void;
}

/** One record: its review moves, coding, receipts, lines, last export and history. */
export function RecordPage({ id, views, onReload, refreshFailed, dirty, onDirtyChange }: RecordPageProps) {
  const { record, singleEntry } = views;
  const user = useCurrentUser();
  const scopes = useSessionScopes();
  // Whether the coding may change now (scopes and state) is the server's answer, as the moves are.
  const editable = views.coding.editable;
  const changes = useRecordChanges(id, user.user_id, views, editable);
  const { conflict, notice } = changes;
  const seen = useSeenVersions(views);
  const edited = conflict ? (seen.get(editedVersion(conflict) ?? views.record.version) ?? views) : views;
  const conflictChanges = useConflictChanges(id, edited, user.user_id, conflict !== null);

  return (
    <>
      <PageHeading title={`${recordTitle(record)}, ${formatMoney(record.amount)}`} />
      <RecordHeader record={record} />
      {refreshFailed}

      {conflict && (
        <VersionConflictNotice
          error={conflict}
          detail={recordProblems(conflict).get(id)?.message}
          changes={conflictChanges.data}
          reloading={changes.reloading}
          onKeepMine={() => void changes.reload(onReload, true)}
          onDiscardMine={() => void changes.reload(onReload, false)}
        />
      )}
      {notice && (
        <p className="notice notice-success" role="status">
          {notice}
        </p>
      )}

      <ReviewSection views={views} changes={changes} dirty={dirty} />

      <ReceiptsSection record={record} />

      <section aria-labelledby="record-export" className="card">
        <h2 id="record-export">Last export</h2>
        <LastExportResult result={record.last_export_result} />
      </section>

      <CodingCard
        views={views}
        changes={changes}
        mayManageRules={canManageRules(scopes)}
        onDirtyChange={onDirtyChange}
      />

      {editable && <SplitMergeSection views={views} changes={changes} dirty={dirty} />}

      <section aria-labelledby="record-lines" className="card">
        <h2 id="record-lines">Line items</h2>
        <LineItemsTable record={record} singleEntry={singleEntry} />
      </section>

      <section aria-labelledby="record-history" className="card">
        <h2 id="record-history">History</h2>
        <RecordHistory id={id} views={views} currentUserId={user.user_id} />
      </section>
    </>
  );
}
