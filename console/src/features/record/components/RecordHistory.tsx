import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { RefreshFailed } from '../../../components/RefreshFailed';
import { useRecordHistory, type RecordViews } from '../api/record';
import { lineNumbers } from '../lines';
import { HistoryTimeline } from './HistoryTimeline';

/** The record's history, a page of events at a time. */
export function RecordHistory({ id, views, currentUserId }: { id: string; views: RecordViews; currentUserId: string }) {
  const history = useRecordHistory(id);
  if (history.isPending) return <Loading label="Loading the history…" />;
  if (history.data === undefined) {
    return <ErrorMessage title="The history could not be loaded." error={history.error} />;
  }
  const events = history.data.pages.flatMap((page) => page.items);
  if (events.length === 0) return <EmptyState title="No change of this record has been recorded." />;
  return (
    <>
      <RefreshFailed what="The history" queries={[history]} />
      <HistoryTimeline events={events} numbers={lineNumbers(views.singleEntry)} currentUserId={currentUserId} />
      {history.hasNextPage && (
        <button type="button" disabled={history.isFetchingNextPage} onClick={() => void history.fetchNextPage()}>
          Show more of the history
        </button>
      )}
    </>
  );
}
