import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import { IsSchema, Type, type TSchema } from 'typebox';
import type { Db } from '../db/database.js';
import { errors, type AppError } from '../errors.js';
import type { AuditSource } from '../modules/audit/audit.service.js';
import { authService, type AuthContext } from '../modules/auth/auth.service.js';
import { grantCache } from '../speed/grant-cache.js';
import { isRecord } from '../lib/guards.js';
import type { SessionGate } from './console.js';
import { errorResponses, IdempotencyKey } from './schemas.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * onRequest hook of an operator's route (metrics, the sandbox's controls): only `Authorization: Bearer <token>`
 * passes, compared in constant time; anything else is 401.
 */
export function operatorToken(token: string): onRequestHookHandler {
  const expected = Buffer.from(`Bearer ${token}`);
  return (request, _reply, done) => {
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return done();
    // A wrong token is invalid, not missing: the caller sent one (and learns nothing of the right one).
    done(given.length === 0 ? errors.missingToken() : errors.invalidOperatorToken());
  };
}

/** The authenticated caller; only on routes that declare scopes (the hook has run). */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw errors.internal();
  return request.auth;
}

/** The caller of an administrative action, with what its audit log entry records: the address and the request id. */
export function auditOf(request: FastifyRequest): AuthContext & AuditSource {
  return { ...authOf(request), address: request.ip, requestId: request.id };
}

function methodsOf(route: RouteOptions): string[] {
  return Array.isArray(route.method) ? route.method : [route.method];
}

/**
 * Completes the schema of every route that declares scopes: OpenAPI security (one requirement per scope,
 * since any one suffices), the Idempotency-Key header on writes, and the shared error responses.
 */
export function completeRouteSchema(route: RouteOptions): void {
  const scopes = route.config?.scopes;
  if (!scopes) return;
  const schema = (route.schema ??= {});
  schema.security = route.config?.consoleOnly ? [{ ConsoleSession: [] }] : scopes.map((scope) => ({ OAuth2: [scope] }));
  const response: Record<string, unknown> = isRecord(schema.response) ? schema.response : (schema.response = {});
  const shared = errorResponses(400, 401, 403, 429, 500, 503);
  for (const [status, body] of Object.entries(shared)) response[status] ??= body;

  if (methodsOf(route).some((m) => WRITE_METHODS.has(m)) && route.config?.idempotency !== 'refused') {
    const mode = route.config?.idempotency ?? 'optional';
    const given = isRecord(schema.headers) && isRecord(schema.headers.properties) ? schema.headers.properties : {};
    const properties: Record<string, TSchema> = {};
    for (const [name, header] of Object.entries(given)) if (IsSchema(header)) properties[name] = header;
    properties['idempotency-key'] = mode === 'required' ? IdempotencyKey : Type.Optional(IdempotencyKey);
    schema.headers = Type.Object(properties);
    response['409'] ??= errorResponses(409)[409]!;
    response['422'] ??= errorResponses(422)[422]!;
  }
  // A write finds no room on a full disk (docs/design.md, "Errors"); every write route says so.
  if (methodsOf(route).some((m) => WRITE_METHODS.has(m))) response['507'] ??= errorResponses(507)[507]!;
}

function bearerToken(header: string | undefined): string | null | AppError {
  if (header === undefined || header.trim() === '') return null;
  if (/^Basic\b/i.test(header)) return errors.basicNotAccepted();
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header);
  if (!match) return /^Bearer\b/i.test(header) ? errors.invalidToken() : null;
  return match[1]!;
}

/**
 * onRequest: authenticates the caller and checks the route's scopes before anything else runs. The caller is
 * a bearer token's API client or, for a request without Authorization, the console user its session cookie
 * signs in (the role's scopes, the same check). A session's writes must also carry its CSRF token.
 */
export function registerAuthentication(app: FastifyInstance, db: Db, sessions: SessionGate): void {
  app.decorateRequest('auth', null);
  const grants = grantCache<AuthContext>();
  app.addHook('onRequest', async (request) => {
    const scopes = request.routeOptions.config.scopes;
    if (!scopes) return;
    const token = bearerToken(request.headers.authorization);
    if (typeof token !== 'string' && token !== null) throw token;
    const auth =
      token === null ? await sessions.caller(request) : await authService.authenticate(db.direct, token, grants);
    if (!auth) throw token === null ? errors.missingToken() : errors.invalidToken();
    if (request.routeOptions.config.consoleOnly && auth.role === undefined) throw errors.consoleOnly();
    if (!scopes.some((scope) => auth.scopes.has(scope))) {
      throw auth.role ? errors.roleForbidden(auth.role, scopes) : errors.insufficientScope(scopes);
    }
    request.auth = auth;
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (request.auth?.role !== undefined && WRITE_METHODS.has(request.method)) {
      sessions.csrf.call(app, request, reply, done);
      return;
    }
    done();
  });
}
