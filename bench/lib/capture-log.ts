/** One statement a request ran, as bench/lib/sql-capture.ts logs it. */
export interface Statement {
  sql: string;
  params: unknown[];
}

type Encoded = { $buffer: string } | { $bigint: string } | unknown;

/** Parameters as JSON: Buffers (base64) and BigInts survive the trip; everything else is JSON already. */
export function encodeParams(params: readonly unknown[]): Encoded[] {
  return params.map((p) =>
    Buffer.isBuffer(p) ? { $buffer: p.toString('base64') } : typeof p === 'bigint' ? { $bigint: p.toString() } : p,
  );
}

export function decodeParams(params: readonly Encoded[]): unknown[] {
  return params.map((p) => {
    if (p !== null && typeof p === 'object') {
      if ('$buffer' in p && typeof p.$buffer === 'string') return Buffer.from(p.$buffer, 'base64');
      if ('$bigint' in p && typeof p.$bigint === 'string') return BigInt(p.$bigint);
    }
    return p;
  });
}

/** The log's lines of one tag, in the order they ran. */
export function statementsOf(log: string, tag: string): Statement[] {
  const out: Statement[] = [];
  for (const line of log.split('\n')) {
    if (!line) continue;
    const entry = JSON.parse(line) as { tag: string; sql: string; params: Encoded[] };
    if (entry.tag === tag) out.push({ sql: entry.sql, params: decodeParams(entry.params) });
  }
  return out;
}
