import type { ReactNode } from 'react';
import { SecretOnce as Shown } from '../../../components/SecretOnce';

/** An endpoint's signing secret, shown this once with a copy button; Done forgets it. */
export function SecretOnce({
  title,
  secret,
  children,
  onDone,
}: {
  title: string;
  secret: string;
  /** What else the reader should know (the previous secret's expiry after a rotation). */
  children?: ReactNode;
  onDone: () => void;
}) {
  return (
    <Shown
      title={title}
      label="Signing secret"
      secret={secret}
      onDone={onDone}
      warning={
        <>
          Copy the signing secret into your receiver now: this screen shows it once. The receiver verifies each delivery
          with it (<code>verifyWebhook</code> of <code>@svc/client/webhooks</code>). If it is lost, rotate the secret.
        </>
      }
    >
      {children}
    </Shown>
  );
}
