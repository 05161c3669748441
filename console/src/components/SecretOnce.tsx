import { useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

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
  /** Why it is shown once and what to do if it is lost. */
  warning: ReactNode;
  /** The secret field's label: "Client secret", "Signing secret". */
  label: string;
  secret: string;
  /** Fields shown before the secret (the client id). */
  before?: ReactNode;
  /** What else the reader should know (scopes; the previous secret's expiry after a rotation). */
  children?: ReactNode;
  onDone: () => void;
}

/**
 * A secret shown this once (svc keeps only its hash, or shows a signing secret on this screen alone), with a copy
 * button; Done forgets it. The heading takes the focus, so the reader hears what happened.
 */
export function SecretOnce({ title, warning, label, secret, before, children, onDone }: SecretOnceProps) {
  const id = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const secretRef = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useLayoutEffect(() => headingRef.current?.focus(), []);

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
      <p className="notice notice-warning">{warning}</p>
      {before}
      <div className="field">
        <label htmlFor={`${id}-secret`}>{label}</label>
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
