/**
 * An attempt's abort (plan cancelled, lease lost, worker shutdown, the node's timeout), cheap until
 * something needs a real AbortSignal. Node's AbortSignal is an EventTarget: making one per attempt and
 * a listener on it per tool run cost a SQLite worker about 15% of its main thread's CPU per node in the
 * throughput benchmark (README, "An attempt's abort, made when read"), and most tools never read their
 * signal. So the engine listens here (`onAbort`, a plain callback) and the AbortSignal is made on first
 * read of `signal` — already aborted, with the reason, when read after the abort.
 */
export class AttemptAbort {
  #aborted = false;
  #reason: unknown;
  #controller: AbortController | undefined;
  #listeners: Set<(reason: unknown) => void> | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Why it was aborted (undefined while it was not). */
  get reason(): unknown {
    return this.#reason;
  }

  /** A real AbortSignal that fires with this abort (for fetch, child processes, the LLM client …). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts once (later calls do nothing); the default reason is an AbortError, as AbortController's. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    listeners?.forEach((listener) => listener(reason));
  }

  /** Calls `listener` once when aborted (at once when already aborted). Returns what stops it. */
  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.#aborted) {
      listener(this.#reason);
      return () => undefined;
    }
    (this.#listeners ??= new Set()).add(listener);
    return () => void this.#listeners?.delete(listener);
  }

  /** An abort of its own that this one also fires (a timeout's, a group of tool calls'). Call `stop` when done with it. */
  child(): { abort: AttemptAbort; stop: () => void } {
    const abort = new AttemptAbort();
    return { abort, stop: this.onAbort((reason) => abort.abort(reason)) };
  }
}
