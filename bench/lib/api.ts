/** Minimal HTTP helpers for the benchmark's own setup steps (not measured). */
export async function call<T = any>(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} → ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : null) as T;
}

export async function token(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** `count` values numbered from `from`, as the bench creates them: value, remote_id and value_id each distinct. */
export function valueItems(from: number, count = 1000) {
  return Array.from({ length: count }, (_, i) => ({
    value: `Account ${from + i}`,
    remote_id: `R${from + i}`,
    value_id: `V${from + i}`,
  }));
}

/**
 * The bodies of `batches` creates of 1000 values each (batch n holds values n × 1000 on), each under its own
 * Idempotency-Key `<keyPrefix>-<n>`: built before a clock starts, so that the load generator measures the server.
 */
export function valueBatches(batches: number, headers: Record<string, string>, keyPrefix: string) {
  return Array.from({ length: batches }, (_, n) => ({
    headers: { ...headers, 'idempotency-key': `${keyPrefix}-${n}` },
    body: JSON.stringify({ items: valueItems(n * 1000) }),
  }));
}
