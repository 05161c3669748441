import { SvcAbortError, SvcTimeoutError, type SvcApiError } from './errors.js';
import type { RequestOptions } from './options.js';

/**
 * One call's end: the caller's signal and the call's own timeout, which stop the request in flight and any wait
 * before the next attempt, each with its own error (SvcAbortError, SvcTimeoutError with scope 'call').
 */
export class CallScope {
  readonly #user: AbortSignal | undefined;
  readonly #deadline: AbortSignal | undefined;
  readonly #timeoutMs: number | undefined;
  readonly #what: string;
  /** Aborts when either does; undefined when the call has neither. */
  readonly signal: AbortSignal | undefined;

  constructor(what: string, options?: RequestOptions) {
    this.#what = what;
    this.#user = options?.signal;
    this.#timeoutMs = options?.timeoutMs;
    this.#deadline = this.#timeoutMs === undefined ? undefined : AbortSignal.timeout(this.#timeoutMs);
    const signals = [this.#user, this.#deadline].filter((s): s is AbortSignal => s !== undefined);
    this.signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  }

  /** The error that ends the call, once its signal or its timeout did; null before. */
  ended(cause?: unknown): SvcApiError | null {
    if (this.#user?.aborted) {
      return new SvcAbortError({
        status: 0,
        error_code: 'ABORTED',
        message: `The request was aborted (${this.#what}).`,
        cause: this.#user.reason,
      });
    }
    if (this.#deadline?.aborted) {
      return new SvcTimeoutError({
        status: 0,
        error_code: 'TIMEOUT',
        message: `The call took longer than its timeout of ${this.#timeoutMs} ms (${this.#what}).`,
        scope: 'call',
        timeout_ms: this.#timeoutMs!,
        cause,
      });
    }
    return null;
  }

  throwIfEnded(): void {
    const error = this.ended();
    if (error) throw error;
  }

  /** `promise`, unless the call ends first: then its error. */
  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.signal;
    if (!signal) return promise;
    if (signal.aborted) return Promise.reject(this.ended()!);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.ended()!);
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  /** A timer of `ms`, cleared when the call ends (its error then). */
  sleep(ms: number): Promise<void> {
    return this.race(
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.signal?.removeEventListener('abort', clear);
          resolve();
        }, ms);
        const clear = () => clearTimeout(timer);
        this.signal?.addEventListener('abort', clear, { once: true });
      }),
    );
  }
}
