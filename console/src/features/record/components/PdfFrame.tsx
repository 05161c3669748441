import type { Receipt } from '@svc/client';
import { useEffect, useState } from 'react';
import { onThisOrigin } from '../api/receipts';
import type { LinkRecovery } from './use-link-recovery';

/**
 * A PDF receipt in the browser's own PDF viewer, in a frame. A frame does not tell the page whether its document
 * loaded, so the link is asked first (HEAD, the same signed link): a link past its time is read again rather than
 * shown as an error page in the frame. The download's Content-Security-Policy (sandbox, nothing run) does not stop
 * Chromium's viewer from drawing it inline (docs/console.md); browsers that draw no PDF in a frame (phones) have
 * the viewer's "Open PDF in a new tab".
 */
export function PdfFrame({ receipt, title, recovery }: { receipt: Receipt; title: string; recovery: LinkRecovery }) {
  const src = onThisOrigin(receipt.download_uri);
  const [checked, setChecked] = useState<string | null>(null);
  const { failed, loaded } = recovery;

  useEffect(() => {
    const controller = new AbortController();
    fetch(src, { method: 'HEAD', credentials: 'omit', signal: controller.signal })
      .then((res) => {
        if (res.ok) {
          loaded(receipt.id);
          setChecked(src);
        } else {
          failed(receipt.id);
        }
      })
      .catch(() => {
        if (!controller.signal.aborted) failed(receipt.id);
      });
    return () => controller.abort();
  }, [src, receipt.id, failed, loaded]);

  if (checked !== src) return <p className="muted">Opening the PDF…</p>;
  return <iframe key={src} src={src} title={title} className="receipt-pdf" />;
}
