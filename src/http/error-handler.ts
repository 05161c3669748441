import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errors, isAppError } from '../errors.js';
import { isDatabaseUnavailable } from '../db/dialect.js';
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
  const e = error as FastifyError & { validationContext?: string };
  if (e?.validation) {
    const problems = allProblems(request, e.validationContext, e.validation as never);
    return errors.invalidRequest(problems, `The request is invalid: ${problems.map((p) => `${p.path || '(body)'} ${p.message}`).join('; ')}`);
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(request.headers['content-type']);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.payloadTooLarge(request.routeOptions.bodyLimit ?? 0);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidField('', 'is required: send a JSON body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.invalidField('', 'is not valid JSON');
    default:
      break;
  }
  if (e instanceof SyntaxError || (e?.statusCode === 400 && /JSON/i.test(e.message ?? ''))) {
    return errors.invalidField('', 'is not valid JSON');
  }
  if (isDatabaseUnavailable(error)) return errors.serviceUnavailable();
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError('INVALID_REQUEST', e.statusCode, e.message);
  }
  return errors.internal();
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(errorBody(error, reply.request.id));
}

/** One handler renders every failure, Fastify's own included, in the error shape. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, request);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ error_code: appError.code }, appError.message);
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, errors.routeNotFound(request.method, request.url)));
}
