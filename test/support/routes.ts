import { randomUUID } from 'node:crypto';

export interface RouteScopes {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI path template, e.g. /v1/fields/{id} */
  path: string;
  /** Any one of these suffices (one security requirement per scope). */
  scopes: string[];
  operation: Record<string, any>;
}

/** Every operation of the OpenAPI document that requires a token, with its scopes. */
export function routeScopes(doc: { paths: Record<string, Record<string, any>> }): RouteScopes[] {
  const out: RouteScopes[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method) || !operation.security) continue;
      // The console's own operations (a partner app's consent) take a signed-in person, never a bearer token: the
      // console's tests cover them (test/oauth.authorization.test.ts refuses them to an API client).
      const security = operation.security as Record<string, string[]>[];
      if (!security.some((req) => 'OAuth2' in req)) continue;
      const scopes = (operation.security as Record<string, string[]>[]).flatMap((req) => Object.values(req).flat());
      out.push({ method: method.toUpperCase() as RouteScopes['method'], path, scopes, operation });
    }
  }
  return out;
}

/** A request the route accepts once authorised: path parameters name nothing, bodies are `{}`. */
export function sampleRequest(route: RouteScopes): [string, { body?: unknown; headers?: Record<string, string> }] {
  const url = route.path.replace(/\{[^}]+\}/g, 'unknown_id');
  const writes = route.method !== 'GET';
  const headers: Record<string, string> = writes ? { 'idempotency-key': randomUUID() } : {};
  return [url, writes && route.method !== 'DELETE' ? { body: {}, headers } : { headers }];
}

/** The custom-field routes themselves (/v1/fields, /v1/fields/{id}), not the values beneath them. */
export const isFieldsRoute = (route: RouteScopes) => /^\/v1\/fields(\/\{[^}/]+\})?$/.test(route.path);
