import type { ReactNode } from 'react';
import { shownError } from '../lib/errors';

interface ErrorMessageProps {
  /** What failed, in words: "The review queue could not be loaded." */
  title: string;
  error: unknown;
  /**
   * Whether to show the service's message under the title (default: yes, unless it says the same). Off where the
   * title already says it in the user's terms and the details are shown elsewhere (a bulk move's rows).
   */
  showMessage?: boolean;
  /** Words to show instead of the service's message (a bulk answer's reason for the one record it concerns). */
  message?: string;
  /** Further words or actions (a Retry button). */
  children?: ReactNode;
}

/** An error from the API: what failed, the service's message, and the request id to quote to support. */
export function ErrorMessage({ title, error, showMessage = true, message, children }: ErrorMessageProps) {
  const shown = shownError(error);
  const words = message ?? shown.message;
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{title}</p>
      {showMessage && words !== title && <p>{words}</p>}
      {shown.requestId && (
        <p className="notice-meta">
          Request id: <code>{shown.requestId}</code>
        </p>
      )}
      {children}
    </div>
  );
}
