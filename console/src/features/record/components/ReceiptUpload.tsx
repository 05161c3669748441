import { SvcApiError } from '@svc/client';
import { useId, useRef, useState, type DragEvent } from 'react';
import { useUploadReceipt } from '../api/receipts';
import { formatBytes, uploadRefusal } from '../receipt-words';

/** What the server recognises (by the bytes; the picker's filter only spares choosing what it would refuse). */
const ACCEPT = 'image/jpeg,image/png,image/webp,image/heic,application/pdf,.jpg,.jpeg,.png,.webp,.heic,.pdf';

interface Upload {
  /** The list's key. */
  key: string;
  /** The Idempotency-Key of the next send: kept after a failure without an answer, new after a refusal (4xx). */
  idempotencyKey: string;
  file: File;
  state: 'waiting' | 'uploading' | 'attached' | 'refused';
  message?: string;
}

const newKey = () => crypto.randomUUID();

/**
 * Adds receipts to the record: files chosen (or a photo taken with the phone's camera) or dropped here, sent one
 * after another, each under its own Idempotency-Key (its "Try again" sends the same key), each with its outcome in
 * words. The SDK sends with fetch, which reports no upload progress: each file says whether it is waiting, being
 * sent, attached or refused, and why.
 */
export function ReceiptUpload({ recordId }: { recordId: string }) {
  const id = useId();
  const upload = useUploadReceipt(recordId);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const queue = useRef<Promise<void>>(Promise.resolve());

  const update = (key: string, change: Partial<Upload>) =>
    setUploads((all) => all.map((u) => (u.key === key ? { ...u, ...change } : u)));

  const send = (item: Upload) => {
    queue.current = queue.current.then(async () => {
      update(item.key, { state: 'uploading', message: undefined });
      try {
        await upload.mutateAsync({ file: item.file, idempotencyKey: item.idempotencyKey });
        update(item.key, { state: 'attached', message: `${item.file.name} is attached.` });
      } catch (error) {
        // The service keeps a refusal as the key's answer: a try after it (a receipt removed to make room) is a
        // new request. Without an answer (the network), the same key lets the service tell a repeat.
        const answered = error instanceof SvcApiError && error.status >= 400 && error.status < 500;
        update(item.key, {
          state: 'refused',
          message: uploadRefusal(item.file.name, error),
          ...(answered ? { idempotencyKey: newKey() } : {}),
        });
      }
    });
  };

  const add = (files: FileList | File[] | null) => {
    const items: Upload[] = [...(files ?? [])].map((file) => ({
      key: newKey(),
      idempotencyKey: newKey(),
      file,
      state: 'waiting',
    }));
    if (items.length === 0) return;
    // Finished uploads make room for the new ones; those still under way stay.
    setUploads((all) => [...all.filter((u) => u.state === 'waiting' || u.state === 'uploading'), ...items]);
    for (const item of items) send(item);
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setOver(false);
    add([...event.dataTransfer.files]);
  };
  const onDragOver = (event: DragEvent<HTMLDivElement>) => {
    if (![...event.dataTransfer.types].includes('Files')) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setOver(true);
  };

  return (
    <div
      className={over ? 'receipt-drop receipt-drop-over' : 'receipt-drop'}
      role="group"
      aria-label="Add receipts"
      onDragOver={onDragOver}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <p className="hint" id={`${id}-hint`}>
        Drop receipts here, or choose them: JPEG, PNG, WebP or PDF.
      </p>
      <div className="button-row">
        <input
          id={`${id}-files`}
          className="visually-hidden-input"
          type="file"
          accept={ACCEPT}
          multiple
          aria-describedby={`${id}-hint`}
          onChange={(event) => {
            add(event.target.files);
            event.target.value = '';
          }}
        />
        <label className="button-like" htmlFor={`${id}-files`}>
          Choose files
        </label>
        <input
          id={`${id}-camera`}
          className="visually-hidden-input"
          type="file"
          accept="image/*"
          capture="environment"
          onChange={(event) => {
            add(event.target.files);
            event.target.value = '';
          }}
        />
        <label className="button-like" htmlFor={`${id}-camera`}>
          Take a photo
        </label>
      </div>
      <ul className="receipt-uploads" aria-label="Uploads" aria-live="polite">
        {uploads.map((u) => (
          <li key={u.key} className={u.state === 'refused' ? 'receipt-upload-refused' : undefined}>
            {u.state === 'waiting' && `${u.file.name} (${formatBytes(u.file.size)}) is waiting.`}
            {u.state === 'uploading' && (
              <>
                <progress aria-label={`Sending ${u.file.name}`} /> Sending {u.file.name} ({formatBytes(u.file.size)})…
              </>
            )}
            {u.state === 'attached' && u.message}
            {u.state === 'refused' && (
              <>
                <span role="alert">{u.message}</span>{' '}
                <button type="button" onClick={() => send(u)}>
                  Try {u.file.name} again
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
