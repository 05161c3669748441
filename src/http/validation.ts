import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ValidationProblem } from '../errors.js';
import { isoToMicros } from '../lib/clock.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true, // report every problem, not only the first
    removeAdditional: false, // reject what the client may not set
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
    messages: true,
    verbose: true, // errors carry their schema: union failures are summarised from it
  });
  addFormats(ajv);
  // date-time: RFC 3339 with a zone, real calendar dates (ajv-formats accepts a missing zone).
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => isoToMicros(s) !== null });
  return ajv;
}

// JSON bodies are validated as sent: a string is not a number. Query strings, paths and headers are text,
// so they are coerced (and a single `x[]=a` becomes an array).
const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ValidateFunction;
};

/**
 * Fastify's compilersFactory.buildValidator: called with the shared schemas (app.addSchema) of a plugin
 * context, and again whenever a child context adds its own; every context gets these two ajv instances.
 */
export function buildValidator(externalSchemas: Record<string, unknown> = {}): FastifySchemaCompiler<unknown> {
  for (const schema of Object.values(externalSchemas) as { $id?: string }[]) {
    if (!schema.$id) continue;
    for (const ajv of [bodyAjv, textAjv]) if (!ajv.getSchema(schema.$id)) ajv.addSchema(schema);
  }
  return validatorCompiler;
}

const PART_PREFIX: Record<string, string> = {
  body: '',
  querystring: '/query',
  params: '/params',
  headers: '/headers',
};

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unionMessage(error: ErrorObject): string {
  const parent = (error.parentSchema ?? {}) as Record<string, unknown>;
  if (typeof parent.errorMessage === 'string') return parent.errorMessage;
  const branches = (parent[error.keyword] ?? []) as Record<string, unknown>[];
  const types = branches.map((b) => (typeof b.type === 'string' && Object.keys(b).every((k) => ['type', 'description', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'pattern'].includes(k)) ? b.type : null));
  if (types.length > 0 && types.every((t) => t !== null)) return `must be ${types.join(' or ')}`;
  return error.keyword === 'oneOf' ? 'must match exactly one of the allowed forms' : 'must match one of the allowed forms';
}

/**
 * Turns ajv errors into {path, message} with JSON pointers. A failed union (anyOf/oneOf) is reported once,
 * at its own path, instead of once per branch. Body errors point into the body (`/items/3/value`); other
 * parts are prefixed with their name (`/query/limit`, `/params/field_id`, `/headers/idempotency-key`).
 */
export function toProblems(errors: ErrorObject[], part: string | undefined): ValidationProblem[] {
  const prefix = PART_PREFIX[part ?? 'body'] ?? '';
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const problems: ValidationProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (unions.some((u) => u !== error && error.schemaPath.startsWith(`${u.schemaPath}/`))) continue;
    let path = `${prefix}${error.instancePath}`;
    let message = error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'required':
        path = `${path}/${escapePointer(String(params.missingProperty))}`;
        message = 'is required';
        break;
      case 'additionalProperties':
        path = `${path}/${escapePointer(String(params.additionalProperty))}`;
        message = 'is not allowed';
        break;
      case 'enum':
        message = `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
        break;
      case 'pattern': {
        // A regular expression is no explanation: the schema's own words when it has them.
        const own = (error.parentSchema as { errorMessage?: unknown } | undefined)?.errorMessage;
        if (typeof own === 'string') message = own;
        break;
      }
      case 'format':
        if (params.format === 'date-time') message = 'must be an RFC 3339 date-time with a time zone';
        break;
      case 'anyOf':
      case 'oneOf':
        message = unionMessage(error);
        break;
      case 'if':
        continue;
      default:
        break;
    }
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ path, message });
  }
  return problems;
}
