import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppError, DRAIN_LIMIT, errors, isAppError, problemsMessage } from '../errors.js';
import { isDatabaseUnavailable, isStorageFull, isTransactionConflict } from '../db/failures.js';
import { isRecord } from '../lib/guards.js';
import { allProblems } from './validation.js';

export interface ErrorBody {
  error_code: string;
  message: string;
  details: Record<string, unknown> | null;
  request_id: string;
}

export function errorBody(error: AppError, requestId: string): ErrorBody {
  return { error_code: error.code, message: error.message, details: error.details, request_id: requestId };
}

/** Maps anything thrown while serving a request to an AppError. Unknown failures become INTERNAL_ERROR. */
export function toAppError(error: unknown, request: FastifyRequest): AppError {
  if (isAppError(error)) return error;
  if (isStorageFull(error)) return errors.storageFull();
  if (isDatabaseUnavailable(error)) return errors.serviceUnavailable();
  if (isTransactionConflict(error)) return errors.concurrentConflict();
  if (!isRecord(error)) return errors.internal();
  const { validation, validationContext, code, statusCode, message } = error;
  if (Array.isArray(validation)) {
    const { problems, omitted } = allProblems(
      request,
      typeof validationContext === 'string' ? validationContext : undefined,
      validation,
    );
    return errors.invalidRequest(problems, problemsMessage(problems, omitted), omitted);
  }
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(request.headers['content-type']);
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = request.routeOptions.bodyLimit ?? 0;
      const declared = Number(request.headers['content-length']);
      return errors.payloadTooLarge(limit, Number.isFinite(declared) && declared <= limit + DRAIN_LIMIT);
    }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidField('', 'is required: send a JSON body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.invalidField('', 'is not valid JSON');
    case 'FST_CSRF_MISSING_SECRET':
    case 'FST_CSRF_INVALID_TOKEN':
      return errors.csrfTokenInvalid();
    default:
      break;
  }
  const text = typeof message === 'string' ? message : '';
  if (error instanceof SyntaxError || (statusCode === 400 && /JSON/i.test(text))) {
    return errors.invalidField('', 'is not valid JSON');
  }
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)
    return errors.clientError(statusCode, text);
  return errors.internal();
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(errorBody(error, reply.request.id));
}

/**
 * Failures the router meets before any route or hook runs (a path parameter over maxParamLength, a URL that
 * does not decode): Fastify would answer them in its own shape, echoing the URL. Render them in ours.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? errors.invalidField('/params', 'must have no path segment longer than 500 characters')
      : error.code === 'FST_ERR_BAD_URL'
        ? errors.invalidField('/params', 'must be a valid percent-encoded URL path')
        : toAppError(error, request);
  request.log.info({ error_code: problem.code, fastify_code: error.code }, problem.message);
  void sendError(reply.header('x-request-id', request.id), problem);
}

/**
 * The token endpoint's answer to a failure (RFC 6749 §5.2), whatever failed, Fastify's own failures included:
 * `{error, error_description}`, never cached. An error without its own OAuth code is `invalid_request` 400 (another
 * content type or a malformed body too, as OAuth clients expect, rather than the API's 415), `temporarily_unavailable`
 * when over the rate limit (429) or the database is away (503), `server_error` otherwise: 500, or 507 when there is
 * no room to store the token (said in the description; not temporary: retrying on a timer makes no room). A failed
 * HTTP Basic authentication carries `WWW-Authenticate: Basic`.
 */
export function sendOAuthError(reply: FastifyReply, error: AppError): FastifyReply {
  const request = reply.request;
  const { status } = error;
  const temporary = status === 429 || status === 503;
  const code =
    error.oauth ?? (temporary ? 'temporarily_unavailable' : status >= 500 ? 'server_error' : 'invalid_request');
  const description =
    code === 'server_error'
      ? error.code === 'INSUFFICIENT_STORAGE'
        ? error.message
        : 'An unexpected error occurred.'
      : error.code === 'UNSUPPORTED_MEDIA_TYPE'
        ? `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported; send application/x-www-form-urlencoded or application/json.`
        : error.message;
  if (status === 401 && /^Basic/i.test(request.headers.authorization ?? '')) {
    void reply.header('www-authenticate', 'Basic realm="svc"');
  }
  return reply
    .code(error.oauth !== null || temporary || status >= 500 ? status : 400)
    .headers(error.headers)
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .type('application/json; charset=utf-8')
    .send({ error: code, error_description: description });
}

/**
 * One handler renders every failure, Fastify's own included: in the API's error shape, or in OAuth's on the routes
 * whose config says `answers: 'oauth'` (the token endpoint).
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, request);
    if (appError.code === 'INSUFFICIENT_STORAGE')
      request.log.error({ err: error }, 'request failed: no room left to store it (storage full)');
    else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ error_code: appError.code }, appError.message);
    if (request.routeOptions.config.answers === 'oauth') return sendOAuthError(reply, appError);
    return sendError(reply, appError);
  });
  // A known path asked with a method it does not serve is 405 with Allow, not 404: the routes' paths as patterns.
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    // Hidden routes (the console's pages, /docs) are not the API: their paths answer 404 for other methods.
    if (isRecord(route.schema) && route.schema.hide === true) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const pattern = new RegExp(
      `^${route.url
        .split('/')
        .map((part) =>
          part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/')}$`,
    );
    routes.push({ pattern, methods });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods))].sort();
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return sendError(reply, errors.methodNotAllowed(request.method, path, allowed));
    }
    return sendError(reply, errors.routeNotFound(request.method, request.url));
  });
}
