import { useId, useLayoutEffect, useRef, useState } from 'react';

/**
 * Recovery codes, shown this once (the service keeps only their hashes): a list to copy or write down, and the
 * button that forgets them. The heading takes the focus, so the reader hears what happened.
 */
export function RecoveryCodesOnce({
  codes,
  doneLabel,
  onDone,
}: {
  codes: string[];
  doneLabel: string;
  onDone: () => void;
}) {
  const id = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useLayoutEffect(() => headingRef.current?.focus(), []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      setCopied('The recovery codes are copied to the clipboard.');
    } catch {
      setCopied('The codes could not be copied: select them and copy them yourself.');
    }
  };

  return (
    <section className="card secret-card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} ref={headingRef} tabIndex={-1}>
        Your recovery codes
      </h2>
      <p className="notice notice-warning">
        Keep these codes somewhere safe, away from your phone: each signs you in once if you lose your authenticator
        app. They are shown only now.
      </p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="button-row">
        <button type="button" onClick={() => void copy()}>
          Copy the codes
        </button>
        <button type="button" className="button-primary" onClick={onDone}>
          {doneLabel}
        </button>
      </div>
      <p role="status" className="copy-status">
        {copied}
      </p>
    </section>
  );
}
