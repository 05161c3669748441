import { useMemo, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { plural } from '../../../lib/format';
import { recordProblems, type RecordProblem } from '../../../lib/errors';
import { REVIEW_STATUS_LABELS } from '../../../lib/labels';
import { canReview, useCurrentUser } from '../../auth/session-context';
import { useBulkMove, useRecordSearch } from '../api/search';
import { BulkActions } from '../components/BulkActions';
import { QueueFilters } from '../components/QueueFilters';
import { QueuePager } from '../components/QueuePager';
import { ReviewQueueTable } from '../components/ReviewQueueTable';
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

const MOVED_WORDS: Record<'READY_FOR_EXPORT' | 'REVIEW', string> = {
  READY_FOR_EXPORT: 'approved (now Ready for export)',
  REVIEW: 'sent back to Review',
};

/** One view of the queue (its filters and sort); a new view starts again on its first page. */
function QueueView({ search }: { search: string }) {
  const view = useMemo(() => parseQueueView(search), [search]);
  const [, navigate] = useLocation();
  const user = useCurrentUser();
  const mayReview = canReview(user);

  const [cursors, setCursors] = useState<string[]>(() => readCursors(search));
  const cursor = cursors.at(-1);
  const query = useMemo(() => searchQuery(view, cursor), [view, cursor]);
  const results = useRecordSearch(query);
  const records = useMemo(() => results.data?.items ?? [], [results.data]);

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [problems, setProblems] = useState<ReadonlyMap<string, RecordProblem>>(new Map());
  const [outcome, setOutcome] = useState<string | null>(null);
  const move = useBulkMove();

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
    move.reset();
  };
  const toggle = (id: string, checked: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (checked) next.add(id);
      else next.delete(id);
      return next;
    });
  const toggleAll = (checked: boolean) => setSelected(checked ? new Set(records.map((r) => r.id)) : new Set());

  const moveSelected = (to: 'READY_FOR_EXPORT' | 'REVIEW') => {
    const chosen = records.filter((r) => selected.has(r.id)).map((r) => ({ id: r.id, version: r.version }));
    setOutcome(null);
    setProblems(new Map());
    move.mutate(
      { review_status: to, records: chosen },
      {
        onSuccess: (answer) => {
          setSelected(new Set());
          setOutcome(`${plural(answer.items.length, 'record')} ${MOVED_WORDS[to]}.`);
        },
        onError: (error) => setProblems(recordProblems(error)),
      },
    );
  };

  const context = { ids: records.map((r) => r.id), search };
  const refusedTitle =
    move.isError && move.variables
      ? problems.size > 0
        ? `Nothing was moved: ${problems.size} of ${plural(move.variables.records.length, 'selected record')} cannot go to ${REVIEW_STATUS_LABELS[move.variables.review_status]}. Each one's reason is shown on its row.`
        : 'Nothing was moved.'
      : '';

  return (
    <>
      <QueueFilters view={view} onApply={show} />

      {mayReview && (
        <BulkActions
          count={selected.size}
          busy={move.isPending}
          onApprove={() => moveSelected('READY_FOR_EXPORT')}
          onSendBack={() => moveSelected('REVIEW')}
        />
      )}
      {outcome && (
        <p className="notice notice-success" role="status">
          {outcome}
        </p>
      )}
      {move.isError && <ErrorMessage title={refusedTitle} error={move.error} showMessage={problems.size === 0} />}

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
