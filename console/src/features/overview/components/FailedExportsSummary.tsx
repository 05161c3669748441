import { Link } from 'wouter';
import { plural } from '../../../lib/format';

/** How many records' last export failed, and the way to them. */
export function FailedExportsSummary({ failed }: { failed: number }) {
  return (
    <div className={failed > 0 ? 'stat stat-alert' : 'stat'}>
      <p className="stat-value">
        {failed > 0 ? `${plural(failed, 'record')} whose last export failed` : 'No record has a failed export'}
      </p>
      {failed > 0 && <Link href="/queue?has_export_failure=true">Show failed exports in the review queue</Link>}
    </div>
  );
}
