import { useState } from 'react';
import { useHistoryState } from 'wouter/use-browser-location';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { isGone } from '../../../lib/errors';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { RefreshFailed } from '../../../components/RefreshFailed';
import { useLeaveGuard } from '../../../lib/leave-guard';
import { readQueueContext } from '../../../lib/queue-context';
import { useRecord } from '../api/record';
import { RecordNavigation } from '../components/RecordNavigation';
import { RecordPage } from './RecordPage';

/** A record's page: read once, navigation within the queue, and the guard on unsaved coding on every way out. */
export function RecordRoute({ id }: { id: string }) {
  const record = useRecord(id);
  const gone = isGone(record.error);
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
      {(record.data === undefined || gone) && record.isError && (
        <>
          <PageHeading title="Record" />
          {gone ? (
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
      {record.data && !gone && (
        <RecordPage
          id={id}
          views={record.data}
          onReload={() => record.refetch()}
          refreshFailed={<RefreshFailed what="The record" queries={[record]} />}
          dirty={dirty}
          onDirtyChange={setDirty}
        />
      )}
    </>
  );
}
