import type { AccountingRecord } from '@svc/client';
import { formatDateTime } from '../../../lib/format';

/** An ERP link is followed only when it is a web address: integrations write it, a user clicks it. */
function webAddress(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** The last export report: a link to the entry in the ERP on success, the ERP's message on failure. */
export function LastExportResult({ result }: { result: AccountingRecord['last_export_result'] }) {
  if (!result) return <p className="muted">Not exported yet.</p>;
  if (result.status === 'SUCCESS') {
    return (
      <div className="notice notice-success">
        <p className="notice-title">Exported on {formatDateTime(result.reported_at)}.</p>
        {result.reference_id && <p>ERP reference: {result.reference_id}</p>}
        {result.deep_link_url &&
          (webAddress(result.deep_link_url) ? (
            <p>
              <a href={webAddress(result.deep_link_url)!} target="_blank" rel="noreferrer noopener">
                Open in the ERP
              </a>
            </p>
          ) : (
            <p>ERP link (not a web address, not linked): {result.deep_link_url}</p>
          ))}
      </div>
    );
  }
  return (
    <div className="notice notice-error">
      <p className="notice-title">Export failed on {formatDateTime(result.reported_at)}.</p>
      <p>The ERP said: {result.error_message}</p>
    </div>
  );
}
