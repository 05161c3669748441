import { SvcApiError } from '@svc/client';
import { useState } from 'react';
import { Link } from 'wouter';
import { useHistoryState } from 'wouter/use-browser-location';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { describeMissingLines, isApiError, recordProblems } from '../../../lib/errors';
import { formatMoney } from '../../../lib/format';
import { REVIEW_STATUS_LABELS, recordTitle } from '../../../lib/labels';
import { useLeaveGuard } from '../../../lib/leave-guard';
import { readQueueContext } from '../../../lib/queue-context';
import { canReview, useCurrentUser } from '../../auth/session-context';
import { canManageRules } from '../../coding-rules/roles';
import {
  useMergeLines,
  useMoveRecord,
  useRecord,
  useRequiredCoding,
  useSaveCoding,
  useSplitLine,
  type RecordViews,
} from '../api/record';
import { CodingSection } from '../components/CodingSection';
import { LastExportResult } from '../components/LastExportResult';
import { LineItemsTable } from '../components/LineItemsTable';
import { LineSplitMerge } from '../components/LineSplitMerge';
import { RecordHeader } from '../components/RecordHeader';
import { RecordHistory } from '../components/RecordHistory';
import { RecordNavigation } from '../components/RecordNavigation';
import { RequiredCodingWarnings } from '../components/RequiredCodingWarnings';
import { ReviewActions } from '../components/ReviewActions';
import { VersionConflictNotice } from '../components/VersionConflictNotice';
import { useCodingAids } from './use-coding-aids';

interface RecordPageProps {
  id: string;
  views: RecordViews;
  onReload: () => Promise<unknown>;
  /** Unsaved coding: RecordRoute guards every way out while there is some. */
  dirty: boolean;
  onDirtyChange: (dirty: boolean) => void;
}

function RecordPage({ id, views, onReload, dirty, onDirtyChange }: RecordPageProps) {
  const { record, singleEntry } = views;
  const user = useCurrentUser();
  const mayReview = canReview(user);
  const required = useRequiredCoding();
  const save = useSaveCoding(id);
  const move = useMoveRecord(id);
  const split = useSplitLine(id);
  const merge = useMergeLines(id);
  const [notice, setNotice] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [reloading, setReloading] = useState(false);
  const editable = singleEntry.review_status === 'PREPARE' || singleEntry.review_status === 'REVIEW';
  const aids = useCodingAids(id, user.user_id, views, mayReview && editable);
  const accept = aids.accept;

  const conflict =
    [save.error, move.error, split.error, merge.error, accept.error].find((e) => isApiError(e, 'VERSION_CONFLICT')) ??
    null;
  const linesError = [split.error, merge.error].find((e) => e && !isApiError(e, 'VERSION_CONFLICT')) ?? null;
  const changingLines = split.isPending || merge.isPending;
  const resetAll = () => {
    setNotice(null);
    save.reset();
    move.reset();
    split.reset();
    merge.reset();
    accept.reset();
  };
  const saveError = save.error && !conflict ? save.error : null;
  const acceptError = accept.error && !conflict ? accept.error : null;
  const moveError = move.error && !conflict ? move.error : null;
  // The move's answer names this record's reason (details.errors): the words to show.
  const moveProblem = moveError ? recordProblems(moveError).get(id) : undefined;
  const missing = moveProblem?.lines?.length ? describeMissingLines(moveProblem.lines) : '';

  // The current version first, then a fresh form over it (the edits are dropped) and the notice gone.
  const reload = async () => {
    setReloading(true);
    try {
      await aids.beforeReload();
      await onReload();
    } finally {
      setGeneration((g) => g + 1);
      resetAll();
      setReloading(false);
    }
  };

  return (
    <>
      <PageHeading title={`${recordTitle(record)}, ${formatMoney(record.amount)}`} />
      <RecordHeader record={record} />

      {conflict && (
        <VersionConflictNotice
          error={conflict}
          detail={recordProblems(conflict).get(id)?.message}
          reloading={reloading}
          onReload={() => void reload()}
        />
      )}
      {notice && (
        <p className="notice notice-success" role="status">
          {notice}
        </p>
      )}

      {mayReview && (
        <section aria-labelledby="record-review" className="card">
          <h2 id="record-review">Review</h2>
          <ReviewActions
            record={record}
            busy={move.isPending || save.isPending}
            blockedBy={dirty ? 'Save or discard the coding changes first.' : null}
            onMove={(to) => {
              setNotice(null);
              save.reset();
              move.mutate(
                { review_status: to, version: record.version },
                {
                  onSuccess: (moved) =>
                    setNotice(
                      `${to === 'READY_FOR_EXPORT' ? 'Approved' : 'Moved'}: the record is now ${REVIEW_STATUS_LABELS[moved.review_status]} (version ${moved.version}).`,
                    ),
                },
              );
            }}
          />
          {moveError && (
            <ErrorMessage
              title={missing ? `The record cannot be approved yet: ${missing}.` : 'The record was not moved.'}
              error={moveError}
              message={moveProblem?.message}
            />
          )}
        </section>
      )}

      <section aria-labelledby="record-export" className="card">
        <h2 id="record-export">Last export</h2>
        <LastExportResult result={record.last_export_result} />
      </section>

      <section aria-labelledby="record-coding" className="card">
        <h2 id="record-coding">Coding</h2>
        {required.isError && (
          <ErrorMessage title="The account's required coding could not be loaded." error={required.error} />
        )}
        {required.data && <RequiredCodingWarnings singleEntry={singleEntry} required={required.data.items} />}
        {saveError && <ErrorMessage title="The coding was not saved." error={saveError} />}
        {acceptError && <ErrorMessage title="The suggestions were not accepted." error={acceptError} />}
        <CodingSection
          views={views}
          generation={generation}
          mayReview={mayReview}
          saving={save.isPending || accept.isPending}
          onDirtyChange={onDirtyChange}
          draftLoading={aids.draftLoading}
          extra={{
            ...aids.extra,
            acceptAll: {
              busy: accept.isPending,
              onAccept: (version) => {
                resetAll();
                accept.mutate(version, {
                  onSuccess: (answer) => {
                    setGeneration((g) => g + 1);
                    setNotice(
                      `${answer.accepted.length === 1 ? '1 suggestion' : `${answer.accepted.length} suggestions`} accepted: the record is now at version ${answer.record.version}.`,
                    );
                  },
                });
              },
            },
          }}
          onSave={(input) => {
            setNotice(null);
            move.reset();
            accept.reset();
            save.mutate(input, {
              onSuccess: (answer) => {
                void aids.sync.clear();
                setGeneration((g) => g + 1);
                setNotice(`Coding saved: the record is now at version ${answer.record.version}.`);
              },
            });
          }}
        />
        {canManageRules(user) && (
          <p className="hint">
            Code records like this one automatically:{' '}
            <Link href={`/coding-rules/new?from_record=${encodeURIComponent(id)}`}>Rule from this record</Link>
          </p>
        )}
      </section>

      {mayReview && editable && (
        <section aria-labelledby="record-split-merge" className="card">
          <h2 id="record-split-merge">Split and merge lines</h2>
          {linesError && <ErrorMessage title="The lines were not changed." error={linesError} />}
          <LineSplitMerge
            key={`${record.version}`}
            singleEntry={singleEntry}
            busy={changingLines || save.isPending || move.isPending}
            blockedBy={dirty ? 'Save or discard the coding changes first.' : null}
            onSplit={(lineId, amounts) => {
              resetAll();
              const number = singleEntry.line_items.findIndex((line) => line.id === lineId) + 1;
              const parts = amounts.map((amount) => ({ amount: { amount, currency: record.amount.currency } }));
              split.mutate(
                { lineId, request: { version: record.version, parts } },
                {
                  onSuccess: (answer) => {
                    setGeneration((g) => g + 1);
                    setNotice(
                      `Line ${number} split in ${parts.length}: the record is now at version ${answer.record.version}.`,
                    );
                  },
                },
              );
            }}
            onMerge={(lineIds) => {
              resetAll();
              merge.mutate(
                { version: record.version, line_ids: lineIds },
                {
                  onSuccess: (answer) => {
                    setGeneration((g) => g + 1);
                    setNotice(
                      `${lineIds.length} lines merged into one: the record is now at version ${answer.record.version}.`,
                    );
                  },
                },
              );
            }}
          />
        </section>
      )}

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

export function RecordRoute({ id }: { id: string }) {
  const record = useRecord(id);
  const queue = readQueueContext(useHistoryState());
  const [dirty, setDirty] = useState(false);
  const guard = useLeaveGuard(
    dirty,
    'Your changes to this record’s coding are not saved. They are kept as your draft: open the record again to save or discard them.',
  );
  return (
    <>
      <RecordNavigation id={id} queue={queue} beforeLeave={guard.confirm} />
      {guard.dialog}
      {record.isPending && (
        <>
          <PageHeading title="Record" />
          <Loading label="Loading the record…" />
        </>
      )}
      {record.isError && (
        <>
          <PageHeading title="Record" />
          {record.error instanceof SvcApiError && record.error.status === 404 ? (
            <ErrorMessage title={`There is no record ${id} in your account.`} error={record.error} />
          ) : (
            <ErrorMessage title="The record could not be loaded." error={record.error}>
              <button type="button" onClick={() => void record.refetch()}>
                Try again
              </button>
            </ErrorMessage>
          )}
        </>
      )}
      {record.data && (
        <RecordPage
          id={id}
          views={record.data}
          onReload={() => record.refetch()}
          dirty={dirty}
          onDirtyChange={setDirty}
        />
      )}
    </>
  );
}
