import type { Receipt } from '@svc/client';
import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { onThisOrigin } from '../api/receipts';
import { formatBytes, receiptKind } from '../receipt-words';
import { PdfFrame } from './PdfFrame';
import type { LinkRecovery } from './use-link-recovery';

const ZOOMS = [50, 75, 100, 150, 200, 300] as const;
const ROTATIONS = [0, 90, 180, 270] as const;

interface ReceiptViewerProps {
  receipts: Receipt[];
  index: number;
  onIndex: (index: number) => void;
  /** Closes the viewer; the page puts the focus back where it was. */
  onClose: () => void;
  recovery: LinkRecovery;
}

/**
 * One receipt at a time in a modal dialog: an image zoomed and turned, a PDF in the browser's own viewer; the
 * previous and next receipts of the record. Keys: ← and → previous and next, + and − zoom, r turns, Escape closes.
 */
export function ReceiptViewer({ receipts, index, onIndex, onClose, recovery }: ReceiptViewerProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const [zoom, setZoom] = useState(2);
  const [rotation, setRotation] = useState(0);
  const receipt = receipts[index];

  useLayoutEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    // The way out has the focus (showModal alone would give it to the first button).
    closeButton.current?.focus();
  }, []);
  // Each receipt is first shown whole and upright.
  useEffect(() => {
    setZoom(2);
    setRotation(0);
  }, [receipt?.id]);

  if (!receipt) return null;
  const image = receipt.content_type.startsWith('image/');
  const position = `${index + 1} of ${receipts.length}`;
  const src = onThisOrigin(receipt.download_uri);
  const previous = () => onIndex((index - 1 + receipts.length) % receipts.length);
  const next = () => onIndex((index + 1) % receipts.length);
  const zoomIn = () => setZoom((z) => Math.min(z + 1, ZOOMS.length - 1));
  const zoomOut = () => setZoom((z) => Math.max(z - 1, 0));
  const rotate = () => setRotation((r) => (r + 1) % ROTATIONS.length);

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    // Arrows in a control that uses them (none here but links and buttons) are left alone.
    const actions: Record<string, (() => void) | undefined> = {
      ArrowLeft: receipts.length > 1 ? previous : undefined,
      ArrowRight: receipts.length > 1 ? next : undefined,
      '+': image ? zoomIn : undefined,
      '=': image ? zoomIn : undefined,
      '-': image ? zoomOut : undefined,
      r: image ? rotate : undefined,
      // The record page's j/k (next and previous record) wait until the viewer is closed.
      j: () => {},
      k: () => {},
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  };

  return (
    <dialog
      ref={ref}
      className="receipt-viewer"
      aria-labelledby={titleId}
      onKeyDown={onKeyDown}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      // Closed by the browser without a cancel event (a second Escape without a user action in between).
      onClose={onClose}
    >
      <div className="receipt-viewer-bar">
        <h2 id={titleId}>
          Receipt {position}
          <span className="cell-sub">
            {receiptKind(receipt.content_type)}, {formatBytes(receipt.size_bytes)}
          </span>
        </h2>
        <div className="button-row" role="toolbar" aria-label="Receipt viewer" aria-controls={`${titleId}-body`}>
          {receipts.length > 1 && (
            <>
              <button type="button" onClick={previous}>
                Previous receipt
              </button>
              <button type="button" onClick={next}>
                Next receipt
              </button>
            </>
          )}
          {image && (
            <>
              <button type="button" onClick={zoomOut} disabled={zoom === 0}>
                Zoom out
              </button>
              <button type="button" onClick={zoomIn} disabled={zoom === ZOOMS.length - 1}>
                Zoom in
              </button>
              <button type="button" onClick={rotate}>
                Rotate
              </button>
            </>
          )}
          <a href={src} target="_blank" rel="noopener noreferrer">
            {image ? 'Open in a new tab' : 'Open PDF in a new tab'}
          </a>
          <button ref={closeButton} type="button" className="button-primary" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <p className="visually-hidden" aria-live="polite">
        {image ? `Zoom ${ZOOMS[zoom]}%, turned ${ROTATIONS[rotation]} degrees.` : ''}
      </p>
      <div className="receipt-viewer-body" id={`${titleId}-body`}>
        {recovery.givenUp.has(receipt.id) ? (
          <p role="alert" className="notice notice-error">
            This receipt could not be shown.{' '}
            <button type="button" onClick={() => recovery.retry(receipt.id)}>
              Try again
            </button>
          </p>
        ) : image ? (
          <img
            key={src}
            src={src}
            alt={`Receipt ${position}`}
            className={`receipt-image zoom-${ZOOMS[zoom]} turn-${ROTATIONS[rotation]}`}
            onLoad={() => recovery.loaded(receipt.id)}
            onError={() => recovery.failed(receipt.id)}
          />
        ) : (
          <PdfFrame receipt={receipt} title={`Receipt ${position} (PDF)`} recovery={recovery} />
        )}
      </div>
    </dialog>
  );
}
