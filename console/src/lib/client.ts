import { SvcClient } from '@svc/client';

/**
 * The console's one way to the service: the SDK in session mode. The session cookie authenticates; the client
 * keeps the session's CSRF token (from `session.current()` / `session.signIn()`) and sends it with every write.
 */
export const client = new SvcClient({ baseUrl: window.location.origin, session: true });
