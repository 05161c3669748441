import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/** Copies text: the Clipboard API where the page may use it, else the selected field's text. */
async function copy(text: string, field: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!field) return false;
    field.select();
    return document.execCommand('copy');
  }
}

interface SecretOnceProps {
  title: string;
  secret: string;
  /** What else the reader should know (the previous secret's expiry after a rotation). */
  children?: ReactNode;
  onDone: () => void;
}

/** A signing secret, shown this once with a copy button; Done forgets it. */
export function SecretOnce({ title, secret, children, onDone }: SecretOnceProps) {
  const id = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const secretRef = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => headingRef.current?.focus(), []);

  const copySecret = async () =>
    setCopied(
      (await copy(secret, secretRef.current))
        ? 'The secret is copied to the clipboard.'
        : 'The secret could not be copied: select it and copy it yourself.',
    );

  return (
    <section className="card secret-card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} ref={headingRef} tabIndex={-1}>
        {title}
      </h2>
      <p className="notice notice-warning">
        Copy the signing secret into your receiver now: this screen shows it once. The receiver verifies each delivery
        with it (<code>verifyWebhook</code> of <code>@svc/client/webhooks</code>). If it is lost, rotate the secret.
      </p>
      <div className="field">
        <label htmlFor={`${id}-secret`}>Signing secret</label>
        <input id={`${id}-secret`} ref={secretRef} readOnly value={secret} className="mono" />
      </div>
      {children}
      <div className="button-row">
        <button type="button" className="button-primary" onClick={() => void copySecret()}>
          Copy secret
        </button>
        <button type="button" onClick={onDone}>
          Done: hide the secret
        </button>
      </div>
      <p role="status" className="copy-status">
        {copied}
      </p>
    </section>
  );
}
