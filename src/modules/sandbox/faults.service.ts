/** What a sandbox fault does to a request of its client. */
export const FAULT_KINDS = ['429', '500', '503', 'delay', 'drop_after_commit'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultSpec {
  kind: FaultKind;
  /** The next `count` requests of the client; or, with `fraction`, each request with that probability. */
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

/**
 * The faults set on clients of this process (a sandbox runs one process: faults are test scaffolding, not data,
 * so they live in memory and end with it). One fault per client; setting another replaces it.
 */
export class FaultBook {
  readonly #faults = new Map<string, FaultState>();

  set(clientId: string, spec: FaultSpec): FaultState {
    const state = { clientId, ...spec };
    this.#faults.set(clientId, state);
    return { ...state };
  }

  get(clientId: string): FaultState | null {
    const state = this.#faults.get(clientId);
    return state ? { ...state } : null;
  }

  clear(clientId: string): boolean {
    return this.#faults.delete(clientId);
  }

  /** The fault a request of `clientId` meets now, if any; a counted fault is used up by it. */
  take(clientId: string, random: () => number = Math.random): FaultState | null {
    const state = this.#faults.get(clientId);
    if (!state) return null;
    if (state.count !== null) {
      state.count -= 1;
      if (state.count <= 0) this.#faults.delete(clientId);
      return { ...state };
    }
    return random() < (state.fraction ?? 0) ? { ...state } : null;
  }
}
