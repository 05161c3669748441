import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { ValidationProblem } from '../errors.js';
import { isoToMicros } from '../lib/clock.js';
import { isRecord } from '../lib/guards.js';
import { structuralProblems } from './structural-check.js';
import { mustBeOfType, plainWords } from './validation-words.js';

// A CommonJS module that sets both module.exports and exports.default to the plugin: TypeScript sees the module
// object, Node the function; `.default` is the plugin to both.
const addFormats = addFormatsModule.default;

function makeAjv(coerce: boolean, allErrors = true): Ajv {
  const ajv = new Ajv({
    allErrors, // report every problem, not only the first
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
/** Stops at a body's first problem: what every valid body takes, and the question whether there is any. */
const firstProblemAjv = makeAjv(false, false);

/** The mark of `omitted` problems past those listed, carried among ajv's errors to toProblems. */
const OMITTED = 'omitted';

/**
 * Compiles a route's schema the first time a request needs it, not at start: compiling every schema of
 * every route was most of the start-up time. Fastify reads `.errors` after a failed call, as from ajv.
 *
 * A body is first checked up to its first problem. Only a body that fails is then checked for every problem:
 * first its unknown members and over-long arrays (http/structural-check.ts: listed up to a cap, the rest counted,
 * never one object per problem). With more unknown members than the cap, or an over-long array, those are the
 * answer; otherwise ajv with `allErrors` lists every problem, its errors now bounded by the schema, not the body.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (!isRecord(schema)) throw new Error(`a route's ${httpPart} schema is not a JSON schema object`);
  if (httpPart !== 'body') {
    let compiled: ValidateFunction | undefined;
    const validate = (data: unknown): boolean => {
      compiled ??= textAjv.compile(schema);
      const valid = compiled(data) === true;
      validate.errors = compiled.errors;
      return valid;
    };
    validate.errors = null as ValidateFunction['errors'];
    return validate;
  }
  let first: ValidateFunction | undefined;
  let every: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    first ??= firstProblemAjv.compile(schema);
    if (first(data) === true) {
      validate.errors = null;
      return true;
    }
    // A few unknown members are reported with every other problem; many of them, or an array longer than its
    // maxItems (whose every item ajv would check), alone.
    const structural = structuralProblems(schema, data);
    if (structural.omitted > 0 || structural.errors.some((e) => e.keyword === 'maxItems')) {
      validate.errors = structural.errors;
      if (structural.omitted > 0) validate.errors.push(omittedMark(structural.omitted));
      return false;
    }
    every ??= bodyAjv.compile(schema);
    every(data);
    validate.errors = every.errors ?? [];
    return false;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
};

function omittedMark(count: number): ErrorObject {
  return { keyword: OMITTED, instancePath: '', schemaPath: '#', params: { count } };
}

const PART_PREFIX: Record<string, string> = {
  body: '',
  querystring: '/query',
  params: '/params',
  headers: '/headers',
};

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The value a client sent, as a refusal of an unknown name quotes it back: a scalar as JSON, at most 60 characters. */
function quoted(data: unknown): string {
  if (data === null || !['string', 'number', 'boolean'].includes(typeof data)) return '';
  const text = JSON.stringify(data);
  return ` (got ${text.length > 60 ? `${text.slice(0, 57)}...` : text})`;
}

function unionMessage(error: ErrorObject): string {
  const parent = isRecord(error.parentSchema) ? error.parentSchema : {};
  if (typeof parent.errorMessage === 'string') {
    // A choice among names ("must be one of: …") says which name it did not know.
    return parent.errorMessage.startsWith('must be one of')
      ? `${parent.errorMessage}${quoted(error.data)}`
      : parent.errorMessage;
  }
  const given: unknown = parent[error.keyword];
  const branches = Array.isArray(given) ? given.filter(isRecord) : [];
  const types = branches.map((b) =>
    typeof b.type === 'string' &&
    Object.keys(b).every((k) =>
      ['type', 'description', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'pattern'].includes(k),
    )
      ? b.type
      : null,
  );
  if (types.length > 0 && types.every((t) => t !== null)) return mustBeOfType(types);
  return error.keyword === 'oneOf'
    ? 'must match exactly one of the allowed forms'
    : 'must match one of the allowed forms';
}

/**
 * Turns ajv errors into {path, message} with JSON pointers. A failed union (anyOf/oneOf) is reported once,
 * at its own path, instead of once per branch. Body errors point into the body (`/items/3/value`); other
 * parts are prefixed with their name (`/query/limit`, `/params/field_id`, `/headers/idempotency-key`).
 */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * The one branch of a failed union whose type the value has (`''` for `string | null`), if exactly one
 * does: its own errors say more than "must be string or null".
 */
function chosenBranch(union: ErrorObject): string | null {
  const parent = isRecord(union.parentSchema) ? union.parentSchema : {};
  // The schema's own words for the union win.
  if (typeof parent.errorMessage === 'string') return null;
  const branches = parent[union.keyword];
  if (!Array.isArray(branches)) return null;
  const type = jsonType(union.data);
  const matches = branches
    .map((b: { type?: unknown }, i) => ({ i, t: b?.type }))
    .filter(({ t }) => t === type || (t === 'number' && type === 'integer') || (Array.isArray(t) && t.includes(type)));
  return matches.length === 1 ? `${union.schemaPath}/${matches[0]!.i}/` : null;
}

/** What a request's validation found: the problems to list, and how many more were only counted. */
export interface Problems {
  problems: ValidationProblem[];
  omitted: number;
}

export function toProblems(errors: ErrorObject[], part: string | undefined): Problems {
  const prefix = PART_PREFIX[part ?? 'body'] ?? '';
  let omitted = 0;
  const unions = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((u) => ({ error: u, chosen: chosenBranch(u) }))
    .map((u) => ({
      ...u,
      chosen: u.chosen && errors.some((e) => e.schemaPath.startsWith(u.chosen!)) ? u.chosen : null,
    }));
  const problems: ValidationProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === OMITTED) {
      omitted += Number(error.params.count);
      continue;
    }
    if (unions.some((u) => u.error === error && u.chosen !== null)) continue;
    const inside = unions.filter((u) => u.error !== error && error.schemaPath.startsWith(`${u.error.schemaPath}/`));
    if (inside.some((u) => u.chosen === null || !error.schemaPath.startsWith(u.chosen))) continue;
    let path = `${prefix}${error.instancePath}`;
    let message = plainWords(error) ?? error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'required':
        path = `${path}/${escapePointer(String(params.missingProperty))}`;
        message = 'is required';
        break;
      case 'additionalProperties': {
        const name = String(params.additionalProperty);
        path = `${path}/${escapePointer(name)}`;
        message = 'is not allowed';
        // `remote_id` for `remote_id[]`, `ids[]` for `ids`: name the one that is.
        const known =
          isRecord(error.parentSchema) && isRecord(error.parentSchema.properties) ? error.parentSchema.properties : {};
        const near = name.endsWith('[]') ? name.slice(0, -2) : `${name}[]`;
        if (Object.prototype.hasOwnProperty.call(known, near)) message = `is not allowed; did you mean ${near}?`;
        break;
      }
      case 'enum':
        message = `must be one of: ${Array.isArray(params.allowedValues) ? params.allowedValues.join(', ') : ''}${quoted(error.data)}`;
        break;
      case 'pattern': {
        // A regular expression is no explanation: the schema's own words when it has them.
        const own = isRecord(error.parentSchema) ? error.parentSchema.errorMessage : undefined;
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
  return { problems, omitted };
}

type Part = 'params' | 'body' | 'querystring' | 'headers';
/** Fastify's order of validation, and where each part lives on the request. */
const PARTS: readonly [Part, 'params' | 'body' | 'query' | 'headers'][] = [
  ['params', 'params'],
  ['body', 'body'],
  ['querystring', 'query'],
  ['headers', 'headers'],
];
const compiled = new WeakMap<object, ValidateFunction>();

/** Request headers arrive lower-cased; so must the names in a headers schema (Fastify does the same). */
function lowerCaseHeaders(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k.toLowerCase(), v])),
    ...(Array.isArray(schema.required) ? { required: schema.required.map((k: string) => k.toLowerCase()) } : {}),
  };
}

function validatorOf(part: Part, schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const source = part === 'headers' ? lowerCaseHeaders(schema) : schema;
    validate = (part === 'body' ? bodyAjv : textAjv).compile(source);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * Every problem of the request. Fastify stops at the first request part that fails (params, body,
 * querystring, headers); the parts after it are checked here too, on copies, so that one answer lists
 * them all (CONVENTIONS.md: "details.errors lists every problem").
 */
export function allProblems(request: FastifyRequest, failedPart: string | undefined, failed: ErrorObject[]): Problems {
  const found = toProblems(failed, failedPart);
  const { problems } = found;
  const index = PARTS.findIndex(([part]) => part === failedPart);
  if (index < 0) return found;
  const schemas: Partial<Record<Part, unknown>> = request.routeOptions.schema ?? {};
  for (const [part, property] of PARTS.slice(index + 1)) {
    const schema = schemas[part];
    if (!isRecord(schema)) continue;
    const validate = validatorOf(part, schema);
    const value = request[property] as unknown;
    let copy: unknown;
    try {
      copy = value === undefined ? null : structuredClone(value);
    } catch {
      // Nested deeper than the stack allows (a garbage body): say so rather than fail with a 500.
      problems.push({ path: PART_PREFIX[part] ?? '', message: 'is nested too deeply' });
      continue;
    }
    if (!validate(copy)) {
      const more = toProblems(validate.errors ?? [], part);
      problems.push(...more.problems);
      found.omitted += more.omitted;
    }
  }
  return found;
}
