import type { SvcApiError } from '@svc/client';
import { plural } from '../../lib/format';

/** "15 minutes" from a SIGN_IN_LOCKED answer's retry_after_seconds. */
export function lockWait(error: SvcApiError): string | null {
  const seconds = error.details?.retry_after_seconds;
  if (typeof seconds !== 'number' || seconds <= 0) return null;
  return seconds < 90 ? plural(Math.ceil(seconds), 'second') : plural(Math.ceil(seconds / 60), 'minute');
}
