/**
 * An answer the service wrote as JSON text itself: pages of records, values and events, whose items are written by
 * their shapes (lib/shape.ts) or, for values on SQLite, by the database — building objects to serialize them again
 * was most of a page's cost. It is the one pre-written path: a route sends it as it sends any answer
 * (`reply.send(page)`), and the one serializer (http/serialization.ts) writes its text in place of the schema's.
 * test/unit/prewritten.test.ts holds its bytes equal to what the route's response schema serializer writes for the
 * same answer as an object.
 */
export class PrewrittenJson {
  constructor(readonly json: string | Buffer) {}
}

type Scalar = string | number | boolean | null;

/**
 * `{"items":<items>,...rest}`: `items` a JSON array already written; the other members written in the order given
 * (the response schema's order, as its serializer writes them).
 */
export function prewrittenPage(items: string | Buffer, rest: Readonly<Record<string, Scalar>>): PrewrittenJson {
  const tail = Object.entries(rest)
    .map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`)
    .join('');
  if (typeof items === 'string') return new PrewrittenJson(`{"items":${items}${tail}}`);
  return new PrewrittenJson(Buffer.concat([Buffer.from('{"items":'), items, Buffer.from(`${tail}}`)]));
}
