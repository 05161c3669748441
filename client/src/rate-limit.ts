/**
 * The client's view of the server's rate limits, shared by every call of one client. svc answers each
 * authenticated request with the IETF draft's fields (src/http/rate-limit.ts):
 * `RateLimit-Policy: "default";q=<max>;w=<window s>` and `RateLimit: "default";r=<remaining>;t=<s to reset>`,
 * and a refusal with 429 and Retry-After (a 503 may carry one too). When a budget is spent, or the server asked
 * to wait, new calls wait for the reset here instead of each being refused.
 *
 * Times are the client's clock (`now`), given by the caller, so that a test's clock drives it.
 */

/** The members of a RateLimit or RateLimit-Policy field, by policy name, with their integer parameters. */
export function parseRateLimitField(value: string | null): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const item of (value ?? '').split(',')) {
    const [rawName, ...rawParams] = item.split(';').map((p) => p.trim());
    const name = rawName?.replace(/^"(.*)"$/, '$1');
    if (!name) continue;
    const params: Record<string, number> = {};
    for (const param of rawParams) {
      const m = /^([a-z*][a-z0-9_.*-]*)=(\d+)$/.exec(param);
      if (m) params[m[1]!] = Number(m[2]);
    }
    out.set(name, params);
  }
  return out;
}

/** Retry-After in ms: delay-seconds, or an HTTP date measured against `at`; null when absent or unreadable. */
export function retryAfterMs(value: string | null, at: number): number | null {
  if (value === null) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - at);
}

interface Budget {
  remaining: number;
  resetAt: number;
  /** From RateLimit-Policy: what a new window holds, and how long it lasts. */
  quota: number | null;
  windowMs: number | null;
  /** A window the client assumed when the last one ended, not yet confirmed by an answer. */
  estimated: boolean;
}

interface Group {
  /** The policies the answers to this group's requests named. */
  policies: Set<string>;
  /** Retry-After: no request before this time. */
  pausedUntil: number;
  pausedBy: 429 | 503;
}

/** A wait the server asked for: how long, and whether a spent budget (429) or an unavailable server (503) asked. */
export interface Hold {
  ms: number;
  status: 429 | 503;
}

/** Answers from within about a second of one reset belong to the same window (`t` is in whole seconds). */
const SAME_WINDOW_MS = 1000;

export class RateLimitScheduler {
  readonly #budgets = new Map<string, Budget>();
  readonly #groups = new Map<string, Group>();

  #group(name: string): Group {
    let group = this.#groups.get(name);
    if (!group) this.#groups.set(name, (group = { policies: new Set(), pausedUntil: 0, pausedBy: 429 }));
    return group;
  }

  /** How long a request of `group` must wait at time `at` before it may go; null when it may go now. */
  hold(group: string, at: number): Hold | null {
    const g = this.#groups.get(group);
    if (!g) return null;
    let until = g.pausedUntil;
    let status = g.pausedBy;
    for (const name of g.policies) {
      const budget = this.#budgets.get(name);
      if (budget && budget.remaining <= 0 && budget.resetAt > until) {
        until = budget.resetAt;
        status = 429;
      }
    }
    return until > at ? { ms: until - at, status } : null;
  }

  /** Counts one request of `group` sent at `at` against each of its budgets; a window ended by then starts anew. */
  take(group: string, at: number): void {
    for (const name of this.#groups.get(group)?.policies ?? []) {
      const budget = this.#budgets.get(name);
      if (!budget) continue;
      if (budget.resetAt <= at) {
        if (budget.quota === null || budget.windowMs === null) {
          this.#budgets.delete(name); // unknown until the next answer says
          continue;
        }
        Object.assign(budget, { remaining: budget.quota, resetAt: at + budget.windowMs, estimated: true });
      }
      budget.remaining -= 1;
    }
  }

  /** What an answer to a request of `group`, received at `at`, says of the budgets. */
  observe(group: string, headers: Headers, at: number): void {
    const policies = parseRateLimitField(headers.get('ratelimit-policy'));
    for (const [name, { r, t }] of parseRateLimitField(headers.get('ratelimit'))) {
      if (r === undefined || t === undefined) continue;
      this.#group(group).policies.add(name);
      const { q, w } = policies.get(name) ?? {};
      const next: Budget = {
        remaining: r,
        resetAt: at + t * 1000,
        quota: q ?? null,
        windowMs: w === undefined ? null : w * 1000,
        estimated: false,
      };
      const current = this.#budgets.get(name);
      if (!current || next.resetAt > current.resetAt + SAME_WINDOW_MS) {
        this.#budgets.set(name, next);
      } else if (next.resetAt >= current.resetAt - SAME_WINDOW_MS) {
        // Answers of one window arrive in any order, and requests the client counted may not have arrived yet:
        // the lowest remaining counts the most requests. The server's reset replaces the client's guess.
        current.remaining = Math.min(current.remaining, next.remaining);
        current.resetAt = current.estimated ? next.resetAt : Math.max(current.resetAt, next.resetAt);
        current.estimated = false;
        current.quota = next.quota ?? current.quota;
        current.windowMs = next.windowMs ?? current.windowMs;
      } // else an answer of a window already over, arriving late: nothing new.
    }
  }

  /** Retry-After: no request of `group` before `until`. */
  pause(group: string, until: number, status: 429 | 503): void {
    const g = this.#group(group);
    if (until > g.pausedUntil) Object.assign(g, { pausedUntil: until, pausedBy: status });
  }
}
