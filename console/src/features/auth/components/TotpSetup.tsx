import { toDataURL } from 'qrcode';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { useConfirmTotp, useStartTotp } from '../api/mfa';

/** The key as an app's "enter a key" box takes it: groups of four. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

/** The otpauth URI as a QR code (a data: PNG drawn in the page: the CSP allows data: images, nothing leaves it). */
function QrCode({ uri }: { uri: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    toDataURL(uri, { margin: 2, width: 200, errorCorrectionLevel: 'M' }).then(
      (url) => current && setSrc(url),
      () => current && setSrc(null),
    );
    return () => {
      current = false;
    };
  }, [uri]);
  if (!src) return null;
  return (
    <img className="qr-code" src={src} width={200} height={200} alt="QR code to scan with your authenticator app" />
  );
}

/**
 * Sets up an authenticator app: a new secret (QR code, and the key as text), then the code the app shows, which
 * the service checks; the recovery codes it answers go to `onConfirmed`, once.
 */
export function TotpSetup({ onConfirmed }: { onConfirmed: (recoveryCodes: string[]) => void }) {
  const id = useId();
  const start = useStartTotp();
  const confirm = useConfirmTotp();
  const [code, setCode] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm.mutate({ code: code.trim() }, { onSuccess: (answer) => onConfirmed(answer.recovery_codes) });
  };

  if (!start.data) {
    return (
      <section className="card" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>Set up an authenticator app</h2>
        <p>
          Two-step sign-in asks for a code from an app on your phone (any TOTP app: Google Authenticator, Microsoft
          Authenticator, 1Password, Bitwarden…) after your password.
        </p>
        {start.isError && <ErrorMessage title="The set-up could not start." error={start.error} />}
        <div className="button-row">
          <button type="button" className="button-primary" disabled={start.isPending} onClick={() => start.mutate()}>
            {start.isPending ? 'Starting…' : 'Set up an authenticator app'}
          </button>
        </div>
      </section>
    );
  }

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Scan the code with your authenticator app</h2>
      <ol className="steps">
        <li>
          In the app, add an account and scan this QR code.
          <QrCode uri={start.data.otpauth_uri} />
        </li>
        <li>
          Cannot scan it? Enter this key instead (time-based):{' '}
          <code className="totp-key" aria-label="Key for your authenticator app">
            {grouped(start.data.secret)}
          </code>
        </li>
        <li>Type the 6-digit code the app shows now.</li>
      </ol>
      <form className="form-stack" onSubmit={submit} aria-label="Confirm the authenticator">
        {confirm.isError && <ErrorMessage title="The authenticator was not set up." error={confirm.error} />}
        <div className="field">
          <label htmlFor={`${id}-code`}>Code from the app</label>
          <input
            id={`${id}-code`}
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9 ]*"
            maxLength={7}
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </div>
        <button type="submit" className="button-primary" disabled={confirm.isPending}>
          {confirm.isPending ? 'Checking…' : 'Confirm'}
        </button>
      </form>
    </section>
  );
}
