import fc from 'fast-check';

/** Strings that break naive code: unicode of every plane, lone surrogates, NULs, injections, huge ones. */
export const garbageString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\u202e\u0301',
    '💥'.repeat(300),
    "'; drop table field_values; --",
    '../../etc/passwd',
    '%00%ff',
    '{"$gt":""}',
    '1e309',
    '-0',
    '2026-13-45T25:61:61Z',
  ),
  fc.nat({ max: 80_000 }).map((n) => 'x'.repeat(n)),
);

/** Any JSON value of bounded depth, with garbage strings and extreme numbers. */
export const garbageJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  garbageString,
  fc.constantFrom(null, true, 0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, [], {}, [null], { '': null }),
);

type Path = (string | number)[];

function pathsOf(value: unknown, at: Path = []): Path[] {
  if (Array.isArray(value)) return [at, ...value.flatMap((v, i) => pathsOf(v, [...at, i]))];
  if (value !== null && typeof value === 'object')
    return [at, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...at, k]))];
  return [at];
}

function replaceAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[path[0]!] = replaceAt(copy[path[0]!], path.slice(1), replacement);
  return copy;
}

/** `base` with one node (the whole body included) replaced by garbage, or with a garbage key added. */
export function mutated(base: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(base);
  return fc.oneof(
    fc.tuple(fc.nat({ max: paths.length - 1 }), garbageJson).map(([i, g]) => replaceAt(base, paths[i]!, g)),
    fc
      .tuple(garbageString, garbageJson)
      .map(([k, g]) => (base && typeof base === 'object' && !Array.isArray(base) ? { ...base, [k]: g } : g)),
    fc
      .nat({ max: 20 })
      .map((n) =>
        base && typeof base === 'object' && 'items' in base
          ? { ...base, items: Array((base as any).items.length * n).fill((base as any).items[0]) }
          : base,
      ),
  );
}

export interface GarbageRequest {
  path: string;
  query: [string, string][];
  contentType: string | null;
  /** Sent as is. */
  payload: string | undefined;
  idempotencyKey: string | undefined;
}

const contentTypes = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      null,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/jsonx',
      'application/xml',
      '*/*',
    ),
  },
);

const deepJson = fc
  .integer({ min: 100, max: 20_000 })
  .chain((n) =>
    fc.constantFrom(
      `${'['.repeat(n)}${']'.repeat(n)}`,
      `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`,
      `{"items":${'['.repeat(n)}${']'.repeat(n)}}`,
    ),
  );

/**
 * Requests to one operation: its valid path, or one with garbage ids; its query parameters and others,
 * repeated, with garbage (and tampered cursors); a valid body mutated, any JSON, deep JSON or no JSON at all;
 * any content type; odd Idempotency-Keys.
 */
export function garbageRequests(op: {
  path: string;
  pathWithGarbage: (g: string) => string;
  queryNames: string[];
  base: unknown;
  cursor?: string;
}): fc.Arbitrary<GarbageRequest> {
  const names = fc.oneof(fc.constantFrom(...op.queryNames, 'cursor', 'limit'), garbageString);
  const tampered = op.cursor
    ? fc
        .nat({ max: op.cursor.length - 1 })
        .map((i) => `${op.cursor!.slice(0, i)}${op.cursor![i] === 'A' ? 'B' : 'A'}${op.cursor!.slice(i + 1)}`)
    : garbageString;
  const queryValue = fc.oneof(garbageString, tampered, fc.constantFrom('0', '-1', '1001', '1e3', 'true', '[]', 'null'));
  const body =
    op.base === undefined
      ? fc.oneof(fc.constant(undefined), garbageJson)
      : fc.oneof({ weight: 4, arbitrary: mutated(op.base) }, garbageJson);
  const payload = fc.oneof(
    { weight: 5, arbitrary: body.map((b) => (b === undefined ? undefined : JSON.stringify(b))) },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: garbageString },
  );
  return fc.record({
    path: fc.oneof(
      { weight: 4, arbitrary: fc.constant(op.path) },
      { weight: 1, arbitrary: garbageString.map(op.pathWithGarbage) },
    ),
    query: fc.array(fc.tuple(names, queryValue), { maxLength: 6 }),
    contentType: contentTypes,
    payload,
    idempotencyKey: fc.oneof(
      { weight: 4, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: fc.oneof(garbageString, fc.constant(undefined)) },
    ),
  });
}

/** encodeURIComponent that survives lone surrogates (which it cannot encode). */
export const encode = (s: string) =>
  encodeURIComponent(
    s.replace(/[\ud800-\udfff]/g, (c, i: number, all: string) =>
      /[\ud800-\udbff][\udc00-\udfff]/.test(all.slice(i, i + 2)) ||
      /[\ud800-\udbff][\udc00-\udfff]/.test(all.slice(i - 1, i + 1))
        ? c
        : '\ufffd',
    ),
  );

/** A header can only carry visible Latin-1: keep what it can of a garbage key. */
export const headerSafe = (s: string) => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

export function urlOf(req: GarbageRequest): string {
  const query = req.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  return query ? `${req.path}?${query}` : req.path;
}
