import type { ErrorObject } from 'ajv';

/**
 * A validation problem in words a person reads ("must not be empty", "must be at most 255 characters long"), in
 * place of ajv's ("must NOT have fewer than 1 characters"). Words are not contract: a problem's `path` and the
 * answer's `error_code` are (docs/design.md, "Errors"); test/foundation/validation-words.test.ts holds the words.
 */

const TYPE_WORDS: Record<string, string[]> = {
  string: ['a string'],
  integer: ['an integer'],
  number: ['a number'],
  boolean: ['true', 'false'],
  array: ['an array'],
  object: ['an object'],
  null: ['null'],
};

/** "a, b or c". */
function either(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)!}`;
}

/** `must be a string or null` for JSON Schema types, as one type or several. */
export function mustBeOfType(types: unknown): string {
  const list = (Array.isArray(types) ? types : String(types).split(',')).map(String);
  return `must be ${either(list.flatMap((t) => TYPE_WORDS[t] ?? [t]))}`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const FORMATS: Record<string, string> = {
  uri: 'a URI',
  url: 'a URL',
  email: 'an email address',
  uuid: 'a UUID',
  date: 'a date (YYYY-MM-DD)',
  time: 'a time of day',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  hostname: 'a host name',
};

/** The words for ajv's own keywords; null for a keyword whose message the caller writes itself. */
export function plainWords(error: ErrorObject): string | null {
  const params = error.params as Record<string, unknown>;
  const limit = Number(params.limit);
  switch (error.keyword) {
    case 'type':
      return mustBeOfType(params.type);
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${plural(limit, 'character', 'characters')} long`;
    case 'maxLength':
      return `must be at most ${plural(limit, 'character', 'characters')} long`;
    case 'minItems':
      return limit === 1 ? 'must have at least one item' : `must have at least ${plural(limit, 'item', 'items')}`;
    case 'maxItems':
      return `must have at most ${plural(limit, 'item', 'items')}`;
    case 'minProperties':
      return `must have at least ${plural(limit, 'member', 'members')}`;
    case 'maxProperties':
      return `must have at most ${plural(limit, 'member', 'members')}`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${limit}`;
    case 'multipleOf':
      return `must be a multiple of ${String(params.multipleOf)}`;
    case 'uniqueItems':
      return `must not repeat an item: items ${String(params.j)} and ${String(params.i)} are the same`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'format': {
      const format = String(params.format);
      return `must be ${FORMATS[format] ?? `in the ${format} format`}`;
    }
    case 'pattern':
      return `must match the pattern ${String(params.pattern)}`;
    case 'not':
    case 'false schema':
      return 'is not allowed here';
    default:
      return null;
  }
}
