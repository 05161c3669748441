import type { Receipt } from '@svc/client';
import { useState } from 'react';
import { ConfirmInline } from '../../../components/ConfirmInline';
import { onThisOrigin } from '../api/receipts';
import { formatBytes, receiptKind } from '../receipt-words';
import type { LinkRecovery } from './use-link-recovery';

interface ReceiptTileProps {
  receipt: Receipt;
  position: string;
  onOpen: () => void;
  recovery: LinkRecovery;
  /** Null: the user may not remove receipts. */
  remove: { busy: boolean; onRemove: () => void } | null;
}

/** One stored receipt: its thumbnail (an image's, or a PDF tile) opening the viewer, and its removal. */
export function ReceiptTile({ receipt, position, onOpen, recovery, remove }: ReceiptTileProps) {
  const [confirming, setConfirming] = useState(false);
  const kind = receiptKind(receipt.content_type);
  const thumbnail = receipt.thumbnail_uri === null ? null : onThisOrigin(receipt.thumbnail_uri);
  const givenUp = recovery.givenUp.has(receipt.id);
  return (
    <li className="receipt-tile">
      <button
        type="button"
        className="receipt-thumb"
        aria-label={`View receipt ${position}: ${kind}, ${formatBytes(receipt.size_bytes)}`}
        onClick={onOpen}
      >
        {thumbnail && !givenUp ? (
          <img
            key={thumbnail}
            src={thumbnail}
            alt=""
            onLoad={() => recovery.loaded(receipt.id)}
            onError={() => recovery.failed(receipt.id)}
          />
        ) : (
          <span className="receipt-glyph" aria-hidden="true">
            {thumbnail ? '?' : 'PDF'}
          </span>
        )}
      </button>
      <span className="cell-sub">
        {kind}, {formatBytes(receipt.size_bytes)}
      </span>
      {givenUp && (
        <span className="receipt-problem">
          Not shown.{' '}
          <button type="button" onClick={() => recovery.retry(receipt.id)}>
            Try again
          </button>
        </span>
      )}
      {remove &&
        (confirming ? (
          <ConfirmInline
            question={`Remove receipt ${position}?`}
            warning="It comes off this record; the history keeps it."
            confirm="Yes, remove"
            confirmAccessibleName={`Yes, remove receipt ${position}`}
            busyLabel="Removing…"
            busy={remove.busy}
            danger
            onConfirm={remove.onRemove}
            onCancel={() => setConfirming(false)}
          />
        ) : (
          <button type="button" aria-label={`Remove receipt ${position}`} onClick={() => setConfirming(true)}>
            Remove
          </button>
        ))}
    </li>
  );
}
