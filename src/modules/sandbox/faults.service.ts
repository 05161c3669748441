/** What a sandbox fault does to a request of its client. */
export const FAULT_KINDS = ['429', '500', '503', 'delay', 'drop_after_commit'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The methods a fault may be narrowed to. */
export const FAULT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type FaultMethod = (typeof FAULT_METHODS)[number];

/** Which requests of the client a fault meets: any (both null), one method, one route (as OpenAPI writes its path), or both. */
export interface FaultSelector {
  method: FaultMethod | null;
  /** `/v3/accounting/records/{id}`: the route's path template, never a concrete URL. */
  route: string | null;
}

export interface FaultSpec extends FaultSelector {
  kind: FaultKind;
  /** The next `count` requests it selects; or, with `fraction`, each such request with that probability. */
  count: number | null;
  fraction: number | null;
  /** delay: how long each affected request waits before it runs. */
  delayMs: number;
  /** 429 and 503: the Retry-After header, in seconds. */
  retryAfter: number;
}

export interface FaultState extends FaultSpec {
  clientId: string;
}

const keyOf = (s: FaultSelector): string => `${s.method ?? '*'} ${s.route ?? '*'}`;

/** How narrow a selector is: a fault on a route and method comes before one on the route, before one on the method. */
const narrowness = (s: FaultSelector): number => (s.route !== null ? 2 : 0) + (s.method !== null ? 1 : 0);

/**
 * The faults set on clients of this process (a sandbox runs one process: faults are test scaffolding, not data,
 * so they live in memory and end with it). A client may have one fault per selector; setting another with the
 * same selector replaces it. A request meets the narrowest fault that selects it, and only that one.
 */
export class FaultBook {
  readonly #faults = new Map<string, Map<string, FaultState>>();

  set(clientId: string, spec: FaultSpec): FaultState {
    const state = { clientId, ...spec };
    const own = this.#faults.get(clientId) ?? new Map<string, FaultState>();
    own.set(keyOf(spec), state);
    this.#faults.set(clientId, own);
    return { ...state };
  }

  /** The client's faults, narrowest first. */
  list(clientId: string): FaultState[] {
    return [...(this.#faults.get(clientId)?.values() ?? [])]
      .sort((a, b) => narrowness(b) - narrowness(a) || keyOf(a).localeCompare(keyOf(b)))
      .map((state) => ({ ...state }));
  }

  /** Clears every fault of the client; answers how many there were. */
  clear(clientId: string): number {
    const count = this.#faults.get(clientId)?.size ?? 0;
    this.#faults.delete(clientId);
    return count;
  }

  /**
   * The fault a request of `clientId` (its method and route template) meets now, if any; a counted fault is used
   * up by it. Only the narrowest selecting fault is asked: a fraction that spares the request spares it.
   */
  take(clientId: string, method: string, route: string | null, random: () => number = Math.random): FaultState | null {
    const own = this.#faults.get(clientId);
    if (!own) return null;
    let chosen: FaultState | undefined;
    for (const state of own.values()) {
      const selects =
        (state.method === null || state.method === method) && (state.route === null || state.route === route);
      if (selects && (!chosen || narrowness(state) > narrowness(chosen))) chosen = state;
    }
    if (!chosen) return null;
    if (chosen.count !== null) {
      chosen.count -= 1;
      if (chosen.count <= 0) own.delete(keyOf(chosen));
      if (own.size === 0) this.#faults.delete(clientId);
      return { ...chosen };
    }
    return random() < (chosen.fraction ?? 0) ? { ...chosen } : null;
  }
}

/** A Fastify route URL (`/v3/accounting/records/:id`) as OpenAPI writes its path (`/v3/accounting/records/{id}`). */
export const openApiPath = (fastifyUrl: string): string => fastifyUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The reverse: an OpenAPI path template as Fastify's router knows it. */
export const fastifyPath = (template: string): string => template.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
