import { sql, type RawBuilder } from 'kysely';
import fastJson from 'fast-json-stringify';
import { Type, type Static, type TObject, type TSchema } from 'typebox';
import { microsToIso } from './clock.js';

/**
 * A response shape, defined once: each member says where its value comes from in a stored row, and from that one
 * definition come the TypeBox schema (validation, the serializer, OpenAPI), the answer object, its JSON text
 * written directly (pages: building and re-serializing objects was most of their cost), and, where a page is
 * written by SQLite itself, the SQL that writes it. A new member is added in one place.
 *
 * `ctx` carries what a row does not hold but the answer shows (the field of a page of values, single-entry mode).
 */
export interface Member<Row, Ctx, S extends TSchema = TSchema> {
  readonly schema: S;
  /** The member's value in the answer object (what `schema` describes). */
  read(row: Row, ctx: Ctx): unknown;
  /** JSON.stringify(read(row, ctx)), written directly. */
  write(row: Row, ctx: Ctx): string;
  /** The member's JSON value as a SQLite expression over the row's columns; absent where SQLite cannot write it. */
  readonly sqlite?: (column: (name: string) => RawBuilder<unknown>, ctx: Ctx) => RawBuilder<unknown>;
}

type Members<Row, Ctx> = { readonly [name: string]: Member<Row, Ctx> };
type SchemaOf<M> = { [K in keyof M]: M[K] extends Member<never, never, infer S> ? S : never };

export interface Shape<Row, Ctx, M extends Members<Row, Ctx>> {
  readonly schema: TObject<SchemaOf<M>>;
  /** The answer object (members in the definition's order). */
  toObject(row: Row, ctx: Ctx): Static<TObject<SchemaOf<M>>>;
  /** JSON.stringify(toObject(row, ctx)), written directly. */
  toJson(row: Row, ctx: Ctx): string;
  /** SQLite `json_object(...)` of the answer, over the columns `column(name)` names; throws if a member has none. */
  sqliteJson(column: (name: string) => RawBuilder<unknown>, ctx: Ctx): RawBuilder<string>;
}

/**
 * Compiles the shape's writers once: straight-line functions with one call site per member, as a hand-written
 * writer would be (a loop over the members made each call site see every member's function, and was slower).
 * The generated text holds only the members' names (as JSON string literals) and indexes: no data.
 */
function compiled<T>(parts: readonly unknown[], body: (call: (i: number) => string) => string): T {
  const params = parts.map((_, i) => `f${i}`);
  const code = `return function (row, ctx) { return ${body((i) => `f${i}(row, ctx)`)}; }`;
  // Generated from the member names (as JSON string literals) and indexes, never from data.
  const factory = new Function(...params, code);
  return factory(...parts);
}

export function defineShape<Row, Ctx = undefined>() {
  return <M extends Members<Row, Ctx>>(
    members: M,
    options: { $id?: string; title?: string; description?: string } = {},
  ): Shape<Row, Ctx, M> => {
    const names = Object.keys(members);
    const list = names.map((name) => members[name]!);
    const properties = Object.fromEntries(names.map((name) => [name, members[name]!.schema]));
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the properties are the members' schemas, by name
    const schema = Type.Object(properties, options) as TObject<SchemaOf<M>>;
    const key = (i: number) => JSON.stringify(names[i]);
    const toObject = compiled<Shape<Row, Ctx, M>['toObject']>(
      list.map((m) => m.read),
      (call) => `{ ${names.map((_, i) => `${key(i)}: ${call(i)}`).join(', ')} }`,
    );
    const toJson = compiled<Shape<Row, Ctx, M>['toJson']>(
      list.map((m) => m.write),
      (call) =>
        `${names.map((_, i) => `${JSON.stringify(`${i === 0 ? '{' : ','}${key(i)}:`)} + ${call(i)}`).join(' + ')} + '}'`,
    );
    return {
      schema,
      toObject,
      toJson,
      sqliteJson(column, ctx) {
        const pairs = names.map((name, i) => {
          const sqlite = list[i]!.sqlite;
          if (!sqlite) throw new Error(`shape member ${name} has no SQLite form`);
          return sql`${sql.lit(name)}, ${sqlite(column, ctx)}`;
        });
        return sql<string>`json_object(${sql.join(pairs)})`;
      },
    };
  };
}

// ---- members ------------------------------------------------------------------------------------------------

/** The columns of `Row` whose values are of type `T`. */
type Columns<Row, T> = { [K in keyof Row & string]: Row[K] extends T ? K : never }[keyof Row & string];

const strOrNull = (value: unknown): string => (value === null ? 'null' : JSON.stringify(value));
const isoOrNull = (value: unknown): string | null => (value === null ? null : microsToIso(Number(value)));

/**
 * The kinds of member a stored row's columns make, for rows of type `Row` (and `ctx` of type `Ctx`). Column
 * names are checked against the row's type; that a column's values fit the member's schema is held by tests
 * (every shape's objects checked against its schema, its text against JSON.stringify of its objects).
 */
export function members<Row extends object, Ctx = undefined>() {
  const get = (row: Row, column: string): unknown => Reflect.get(row, column);
  return {
    /** A text column. */
    text<S extends TSchema>(column: Columns<Row, string>, schema: S): Member<Row, Ctx, S> {
      return {
        schema,
        read: (row) => get(row, column),
        write: (row) => JSON.stringify(get(row, column)),
        sqlite: (col) => col(column),
      };
    },
    /** A text column that may be null. */
    nullableText<S extends TSchema>(column: Columns<Row, string | null>, schema: S): Member<Row, Ctx, S> {
      return {
        schema,
        read: (row) => get(row, column),
        write: (row) => strOrNull(get(row, column)),
        sqlite: (col) => col(column),
      };
    },
    /** A 0/1 integer column answered as a boolean. */
    flag<S extends TSchema>(column: Columns<Row, number>, schema: S): Member<Row, Ctx, S> {
      return {
        schema,
        read: (row) => get(row, column) === 1,
        write: (row) => (get(row, column) === 1 ? 'true' : 'false'),
        sqlite: (col) => sql`json(iif(${col(column)}, 'true', 'false'))`,
      };
    },
    /** An integer column (PostgreSQL's bigint arrives as a number too: src/db/postgres.ts). */
    integer<S extends TSchema>(column: Columns<Row, number>, schema: S): Member<Row, Ctx, S> {
      return {
        schema,
        read: (row) => Number(get(row, column)),
        write: (row) => String(Number(get(row, column))),
        sqlite: (col) => col(column),
      };
    },
    /** Microseconds since the epoch, answered as RFC 3339 UTC with six decimals. */
    time<S extends TSchema>(column: Columns<Row, number>, schema: S): Member<Row, Ctx, S> {
      return {
        schema,
        read: (row) => microsToIso(Number(get(row, column))),
        write: (row) => `"${microsToIso(Number(get(row, column)))}"`,
        sqlite: (col) => {
          // As microsToIso: SQLite's / and % truncate toward zero, so the fraction is taken modulo first (times
          // before 1970 come out as JavaScript writes them). Years after 9999 are outside both.
          const fraction = sql`((${col(column)} % 1000000) + 1000000) % 1000000`;
          return sql`strftime('%Y-%m-%dT%H:%M:%S', (${col(column)} - ${fraction}) / 1000000, 'unixepoch') || printf('.%06dZ', ${fraction})`;
        },
      };
    },
    /** Microseconds since the epoch, or null. */
    nullableTime<S extends TSchema>(column: Columns<Row, number | null>, schema: S): Member<Row, Ctx, S> {
      return {
        schema,
        read: (row) => isoOrNull(get(row, column)),
        write: (row) => {
          const iso = isoOrNull(get(row, column));
          return iso === null ? 'null' : `"${iso}"`;
        },
      };
    },
    /** JSON text stored in the answer's form (written by JSON.stringify), spliced in as it is; null stays null. */
    storedJson<S extends TSchema>(column: Columns<Row, string | null>, schema: S): Member<Row, Ctx, S> {
      return {
        schema,
        read: (row) => {
          const text = get(row, column);
          return typeof text === 'string' ? JSON.parse(text) : null;
        },
        write: (row) => {
          const text = get(row, column);
          return typeof text === 'string' ? text : 'null';
        },
      };
    },
    /** Text the context gives (the same for every row of one answer). */
    contextText<S extends TSchema>(value: (ctx: Ctx) => string, schema: S): Member<Row, Ctx, S> {
      return {
        schema,
        read: (_row, ctx) => value(ctx),
        write: (_row, ctx) => JSON.stringify(value(ctx)),
        sqlite: (_col, ctx) => sql`${value(ctx)}`,
      };
    },
    /** Anything else: how to read it, and (where that is faster than JSON.stringify of it) how to write it. */
    computed<S extends TSchema>(
      schema: S,
      read: (row: Row, ctx: Ctx) => Static<S>,
      write: (row: Row, ctx: Ctx) => string = (row, ctx) => JSON.stringify(read(row, ctx)),
    ): Member<Row, Ctx, S> {
      return { schema, read, write };
    },
  };
}

/**
 * The writer of a member stored as JSON text in the answer's form (a record's lines, user, vendor, receipts): the
 * response serializer's own (fast-json-stringify, compiled once from the member's schema on first use), so that
 * the stored text, spliced into pre-written pages, is byte for byte what the route's serializer writes for it
 * (members in its order: required ones first, then optional ones). Its input is what the request's schema let through.
 */
export function storedJsonWriter(schema: TSchema): (value: unknown) => string {
  let write: ((value: unknown) => string) | undefined;
  return (value) => (write ??= fastJson(schema))(value);
}
