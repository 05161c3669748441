import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { useOverview } from '../api/overview';
import { ExportsPerDayChart } from '../components/ExportsPerDayChart';
import { FailedExportsSummary } from '../components/FailedExportsSummary';
import { ReviewCountsTable } from '../components/ReviewCountsTable';
import { WaitingLongestList } from '../components/WaitingLongestList';

export function OverviewRoute() {
  const overview = useOverview();
  return (
    <>
      <PageHeading title="Overview" />
      {overview.isPending && <Loading label="Loading the overview…" />}
      {overview.isError && (
        <ErrorMessage title="The overview could not be loaded." error={overview.error}>
          <button type="button" onClick={() => void overview.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {overview.data && (
        <div className="overview-grid">
          <section aria-labelledby="overview-counts" className="card overview-wide">
            <h2 id="overview-counts">Records by state</h2>
            <ReviewCountsTable counts={overview.data.counts} />
          </section>
          <section aria-labelledby="overview-failures" className="card">
            <h2 id="overview-failures">Export failures</h2>
            <FailedExportsSummary failed={overview.data.failed_exports} />
          </section>
          <section aria-labelledby="overview-waiting" className="card">
            <h2 id="overview-waiting">Waiting longest</h2>
            <WaitingLongestList records={overview.data.waiting_longest} />
          </section>
          <section aria-labelledby="overview-exports" className="card overview-wide">
            <h2 id="overview-exports">Exports per day</h2>
            <ExportsPerDayChart days={overview.data.exports_per_day} />
          </section>
        </div>
      )}
    </>
  );
}
