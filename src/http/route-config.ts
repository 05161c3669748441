import type { Scope } from '../modules/auth/scopes.js';
import type { AuthContext } from '../modules/auth/auth.service.js';
import type { IdempotencyClaim } from './idempotency.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The OAuth scopes of the operation; any one of them suffices. Declared once per route: the bearer
     * check, the 401/403 answers and the OpenAPI security requirements all come from it. Absent: public.
     */
    scopes?: readonly Scope[];
    /**
     * Idempotency-Key on an authenticated POST/PUT/DELETE: honoured when sent, or required; or refused, for an
     * answer that must never be stored (it holds a secret shown once).
     */
    idempotency?: 'required' | 'optional' | 'refused';
    /**
     * Only a person signed in to the console may call it (their role must still hold `scopes`): a bearer token is
     * refused with 403 whatever its scopes. Its OpenAPI security is the console session, not OAuth.
     */
    consoleOnly?: boolean;
    /**
     * Console sign-in and password links (each runs argon2): counted against the sign-in budget of the client's
     * address (SIGN_IN_RATE_LIMIT_MAX), keyed on this matched route's config, never on the URL as spelt.
     */
    signIn?: boolean;
    /**
     * The answer holds a secret or a token (shown once, or on purpose): sent with `Cache-Control: no-store` so that no
     * cache keeps it. Implied by `idempotency: 'refused'`.
     */
    holdsSecret?: boolean;
    /** Every failure answered in OAuth 2.0's shape (RFC 6749 §5.2) rather than the API's: the token endpoint. */
    answers?: 'oauth';
    /**
     * A file upload (receipts): the route reads a body of up to this many bytes, which BODY_LIMIT_BYTES, the
     * ceiling of JSON bodies, does not cap (RECEIPT_MAX_BYTES decides).
     */
    uploadBytes?: number;
    /** Set by http/body-limits.ts from the body schema: a JSON body with more separators cannot be valid. */
    maxJsonSeparators?: number;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
    idempotency: IdempotencyClaim | null;
  }
}

export {};
