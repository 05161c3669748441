import type { AccountingRecord } from '@svc/client';
import { useLayoutEffect, useRef, useState } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { shownError } from '../../../lib/errors';
import { canAttachReceipts } from '../../auth/session-context';
import { useSessionScopes } from '../../auth/api/session';
import { isStored, useRemoveReceipt, useRereadRecord, useStoredReceipts } from '../api/receipts';
import { ReceiptTile } from './ReceiptTile';
import { ReceiptUpload } from './ReceiptUpload';
import { ReceiptViewer } from './ReceiptViewer';
import { useLinkRecovery } from './use-link-recovery';
import '../receipts.css';

/**
 * The record's receipts: thumbnails (an image's, or a PDF tile) that open the viewer, those a source system sent
 * with links of its own, and, for a role that may (the session's scopes), adding and removing receipts.
 */
export function ReceiptsSection({ record }: { record: AccountingRecord }) {
  const stored = useStoredReceipts(record);
  const reread = useRereadRecord(record.id);
  const recovery = useLinkRecovery(reread);
  const remove = useRemoveReceipt(record.id);
  const mayAttach = canAttachReceipts(useSessionScopes());
  const [open, setOpen] = useState<number | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const external = (record.receipts ?? []).filter((r) => !isStored(r));
  const receipts = stored.data ?? [];

  const view = (index: number) => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setOpen(index);
  };
  const returning = useRef(false);
  const close = () => {
    returning.current = true;
    setOpen(null);
  };
  // The viewer gone: back where it was opened from (its tile), or to the section when that tile is gone, in the
  // drawing that removes it (the focus never rests on the page's body between the two).
  useLayoutEffect(() => {
    if (open !== null || !returning.current) return;
    returning.current = false;
    const back = opener.current?.isConnected ? opener.current : heading.current;
    back?.focus();
  }, [open]);

  return (
    <section aria-labelledby="record-receipts" className="card">
      <h2 id="record-receipts" ref={heading} tabIndex={-1}>
        Receipts
      </h2>
      {stored.isPending && stored.fetchStatus !== 'idle' && <Loading label="Loading the receipts…" />}
      {stored.isError && (
        <ErrorMessage title="The receipts could not be loaded." error={stored.error}>
          <button type="button" onClick={() => void stored.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {receipts.length === 0 && external.length === 0 && <p className="muted">No receipt yet.</p>}
      {receipts.length > 0 && (
        <ul className="receipt-tiles" aria-label="Stored receipts">
          {receipts.map((receipt, index) => (
            <ReceiptTile
              key={receipt.id}
              receipt={receipt}
              position={`${index + 1} of ${receipts.length}`}
              onOpen={() => view(index)}
              recovery={recovery}
              remove={
                mayAttach
                  ? {
                      busy: remove.isPending && remove.variables === receipt.id,
                      onRemove: () => remove.mutate(receipt.id),
                    }
                  : null
              }
            />
          ))}
        </ul>
      )}
      {remove.isError && (
        <p role="alert" className="notice notice-error">
          The receipt was not removed: {shownError(remove.error).message}
        </p>
      )}
      {external.length > 0 && (
        <ul className="receipt-external" aria-label="Receipts from the source system">
          {external.map((receipt) => (
            <li key={receipt.id}>
              Receipt <code>{receipt.id}</code> from the source system
              {(receipt.download_uris ?? []).map((uri, i) => (
                <span key={uri}>
                  {' · '}
                  <a href={uri} target="_blank" rel="noopener noreferrer">
                    Open {receipt.download_uris!.length > 1 ? `link ${i + 1}` : 'it'}
                  </a>
                </span>
              ))}
            </li>
          ))}
        </ul>
      )}
      {mayAttach && <ReceiptUpload recordId={record.id} />}
      {open !== null && receipts.length > 0 && (
        <ReceiptViewer
          receipts={receipts}
          index={Math.min(open, receipts.length - 1)}
          onIndex={setOpen}
          onClose={close}
          recovery={recovery}
        />
      )}
    </section>
  );
}
