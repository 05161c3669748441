import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { Type, type TSchema } from 'typebox';

// Plain `enum` rather than a union of literals: ajv reports it as "must be one of: ...", and the response
// serializer writes it without trying each branch.
export const oneOf = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description === undefined ? {} : { description }) });

/** The body of every 4xx/5xx answer (CONVENTIONS.md, "Errors"). */
export const ErrorResponse = Type.Object(
  {
    error_code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: [...ERROR_CODES],
      description: 'Machine-readable error code',
      examples: ['INVALID_REQUEST'],
    }),
    message: Type.String({ description: 'Human-readable error message' }),
    details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'Additional error context: for INVALID_REQUEST, `errors` lists every problem as {path, message}',
    }),
    request_id: Type.String({ description: 'The X-Request-Id of the request' }),
  },
  { $id: 'ErrorResponse', title: 'Error' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: INVALID_REQUEST (details.errors lists every problem) or INVALID_CURSOR',
  401: 'UNAUTHORIZED: missing, invalid or expired access token',
  403: 'FORBIDDEN: the token lacks every scope listed for the operation',
  404: 'NOT_FOUND',
  409: 'Conflict',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'Unprocessable',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE: the database cannot be reached',
  507: 'INSUFFICIENT_STORAGE: no room left to store the request (a full disk); nothing was stored',
};

const errorRef = Type.Ref('ErrorResponse');

/** Error responses for a route's schema: `...errorResponses(404, 409)`. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) {
    out[status] = Type.Unsafe({ ...errorRef, description: ERROR_DESCRIPTIONS[status] ?? 'Error' });
  }
  return out;
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** RFC 3339 UTC timestamp with microseconds. */
export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-06-11T09:09:10.422192Z'] });

export const Limit = (max: number, fallback = 100) =>
  Type.Integer({
    minimum: 1,
    maximum: max,
    default: fallback,
    description: `Maximum number of items returned: 1 to ${max}, default ${fallback}.`,
  });

/**
 * The paging members of every list of svc's own, after `items` (docs/design.md, "Pagination"): the convention of
 * the spec's records query. The spec's own lists keep theirs as the spec writes them.
 */
export const PageLinks = {
  has_next_page: Type.Boolean({ description: 'Another page follows: ask again with next_cursor' }),
  next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null at the end' })),
};

export const Cursor = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'The `next_cursor` of the previous response, with the same filters.',
});

export const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  // `*`, not `+`: an empty key is reported once, by minLength.
  pattern: '^[\\x20-\\x7E]*$',
  errorMessage: 'must be printable ASCII characters',
  description:
    'Makes the request safe to retry: 1 to 255 printable ASCII characters, kept 24 hours per client. A retry with the same key and request replays the first answer (header `Idempotent-Replayed: true`).',
});
