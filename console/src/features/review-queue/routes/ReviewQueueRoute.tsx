import { useMemo, useState } from 'react';
import { useSessionScopes } from '../../auth/api/session';
import { Link, useLocation, useSearch } from 'wouter';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { plural } from '../../../lib/format';
import { recordProblems, type RecordProblem } from '../../../lib/errors';
import { REVIEW_STATUS_LABELS } from '../../../lib/labels';
import { canReview } from '../../auth/session-context';
import { usePlanBulk, useRunBulk, type BulkOutcome } from '../api/bulk';
import { useRecordSearch } from '../api/search';
import type { BulkAction, BulkPlan } from '../bulk-plan';
import { BulkActions } from '../components/BulkActions';
import { BulkRefusals } from '../components/BulkRefusals';
import { QueueFilters } from '../components/QueueFilters';
import { QueuePager } from '../components/QueuePager';
import { ReviewQueueTable } from '../components/ReviewQueueTable';
import { SavedViews } from '../components/SavedViews';
import { readCursors, writeCursors } from '../cursor-stack';
import {
  hasFilters,
  nextSort,
  parseQueueView,
  queueSearchString,
  searchQuery,
  type QueueView,
  type SortColumn,
} from '../queue-params';

/** What a bulk action did, in words. */
function outcomeWords(outcome: BulkOutcome): string {
  const words: string[] = [];
  for (const { to, count } of outcome.moved) {
    if (outcome.action === 'approve') {
      const first = outcome.submittedFirst > 0 ? `, ${outcome.submittedFirst} of them submitted first` : '';
      words.push(`${plural(count, 'record')} approved (now Ready for export)${first}.`);
    } else {
      words.push(`${plural(count, 'record')} sent back to ${REVIEW_STATUS_LABELS[to]}.`);
    }
  }
  for (const { to, count } of outcome.stoppedAt) {
    words.push(`${plural(count, 'record')} submitted but not approved (now ${REVIEW_STATUS_LABELS[to]}).`);
  }
  if (words.length === 0) words.push('No record was moved.');
  if (outcome.notMoved.length > 0) {
    words.push(`${plural(outcome.notMoved.length, 'record')} not moved: each one's reason is shown on its row.`);
  }
  return words.join(' ');
}

/** One view of the queue (its filters and sort); a new view starts again on its first page. */
function QueueView({ search }: { search: string }) {
  const view = useMemo(() => parseQueueView(search), [search]);
  const [, navigate] = useLocation();
  const scopes = useSessionScopes();
  const mayReview = canReview(scopes);

  const [cursors, setCursors] = useState<string[]>(() => readCursors(search));
  const cursor = cursors.at(-1);
  const query = useMemo(() => searchQuery(view, cursor), [view, cursor]);
  const results = useRecordSearch(query);
  const records = useMemo(() => results.data?.items ?? [], [results.data]);

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [problems, setProblems] = useState<ReadonlyMap<string, RecordProblem>>(new Map());
  const [outcome, setOutcome] = useState<string | null>(null);
  const [pending, setPending] = useState<BulkPlan | null>(null);
  const planning = usePlanBulk();
  const run = useRunBulk();

  const show = (next: QueueView) => {
    const query = queueSearchString(next);
    navigate(query ? `/queue?${query}` : '/queue');
  };
  const turnPage = (next: string[]) => {
    setCursors(next);
    writeCursors(search, next);
    setSelected(new Set());
    setProblems(new Map());
    setOutcome(null);
    setPending(null);
    planning.reset();
    run.reset();
  };
  const toggle = (id: string, checked: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (checked) next.add(id);
      else next.delete(id);
      return next;
    });
  const toggleAll = (checked: boolean) => setSelected(checked ? new Set(records.map((r) => r.id)) : new Set());

  const execute = (plan: BulkPlan, partial: boolean, withVia: boolean) =>
    run.mutate(
      { plan, partial, withVia },
      {
        onSuccess: (done) => {
          setPending(null);
          setSelected(new Set());
          setOutcome(outcomeWords(done));
          setProblems(
            new Map(
              done.notMoved.map(({ accounting_record_id, error_code, message, reason }) => [
                accounting_record_id,
                { accounting_record_id, error_code, message, reason },
              ]),
            ),
          );
        },
        onError: (error) => {
          setPending(null);
          setProblems(recordProblems(error));
        },
      },
    );

  /** Asks the server what the selected records allow; moves at once when all do, else shows who cannot and why. */
  const start = (action: BulkAction) => {
    const chosen = records.filter((r) => selected.has(r.id)).map((r) => ({ id: r.id, version: r.version }));
    setOutcome(null);
    setProblems(new Map());
    setPending(null);
    run.reset();
    planning.mutate(
      { action, records: chosen },
      { onSuccess: (plan) => (plan.refused.length === 0 ? execute(plan, false, false) : setPending(plan)) },
    );
  };

  const context = { ids: records.map((r) => r.id), search };
  const busy = planning.isPending || run.isPending;

  return (
    <>
      <SavedViews view={view} />
      <QueueFilters view={view} onApply={show} />

      {mayReview && (
        <BulkActions
          count={selected.size}
          busy={busy}
          onApprove={() => start('approve')}
          onSendBack={() => start('sendBack')}
        />
      )}
      {pending && (
        <BulkRefusals
          plan={pending}
          records={records}
          busy={busy}
          onGoOn={() => execute(pending, true, false)}
          onSubmitAndApprove={() => execute(pending, true, true)}
          onCancel={() => setPending(null)}
        />
      )}
      {outcome && (
        <p className="notice notice-success" role="status">
          {outcome}
        </p>
      )}
      {planning.isError && <ErrorMessage title="Nothing was moved." error={planning.error} />}
      {run.isError && (
        <ErrorMessage
          title={
            problems.size > 0
              ? `Nothing was moved: ${plural(problems.size, 'selected record')} cannot make this move. Each one's reason is shown on its row.`
              : 'Nothing was moved.'
          }
          error={run.error}
          showMessage={problems.size === 0}
        />
      )}

      {results.isPending && <Loading label="Loading records…" />}
      {results.isError && (
        <ErrorMessage title="The review queue could not be loaded." error={results.error}>
          <button type="button" onClick={() => void results.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {results.data && records.length === 0 && (
        <EmptyState title={cursors.length > 0 ? 'No more records on this page.' : 'No records match these filters.'}>
          {hasFilters(view.filters) && <Link href="/queue">Clear all filters</Link>}
        </EmptyState>
      )}
      {results.data && records.length > 0 && (
        <>
          <p className="table-summary" role="status">
            {plural(records.length, 'record')} on page {cursors.length + 1}
            {results.isFetching ? ' (refreshing…)' : ''}
          </p>
          <ReviewQueueTable
            records={records}
            selected={mayReview ? selected : null}
            onToggle={toggle}
            onToggleAll={toggleAll}
            sort={view.sort}
            onSort={(column: SortColumn) => show({ ...view, sort: nextSort(view.sort, column) })}
            problems={problems}
            context={context}
          />
        </>
      )}
      {results.data && (
        <QueuePager
          page={cursors.length + 1}
          hasNext={results.data.has_next_page && results.data.next_cursor !== null}
          busy={results.isFetching}
          onPrevious={() => turnPage(cursors.slice(0, -1))}
          onNext={() => results.data?.next_cursor && turnPage([...cursors, results.data.next_cursor])}
        />
      )}
      <p className="hint">
        Open a record to code its lines; on a record opened from here, <kbd>j</kbd> and <kbd>k</kbd> go to the next and
        previous record of this page.
      </p>
    </>
  );
}

export function ReviewQueueRoute() {
  const search = useSearch();
  return (
    <>
      <PageHeading title="Review queue" />
      <QueueView key={search} search={search} />
    </>
  );
}
