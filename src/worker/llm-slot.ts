import type { LlmWork, Store } from '../store/index.js';

/** What serves one plan's claimed LLM work, by the plan's mode: the reflection planner, a ReAct agent's loop. */
export interface LlmDriver {
  serve(work: LlmWork, signal: AbortSignal): Promise<void>;
}

/** The backoff when serving the work failed in a way the planner could not even count (the database, mostly). */
const UNCOUNTED_FAILURE_DELAY_MS = 5_000;

interface Serving {
  work: LlmWork;
  controller: AbortController;
}

/**
 * A worker's slots for LLM work on reflection plans (a rewrite, the first plan, the final answer;
 * `worker.llmSlots`, default 1): each plan's work claimed with a lease like a node, renewed while the
 * call runs. A renewal that fails — another worker took the work over, or the plan was cancelled,
 * paused or ended — aborts the call in flight. Whatever ends a serving, the work is given back; an
 * error the planner did not count itself is counted here, so no path gives the work back uncounted
 * unless the call was aborted.
 */
export class LlmSlot {
  readonly #serving = new Map<string, Serving>();
  readonly #running = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly drivers: Readonly<Record<string, LlmDriver | undefined>>,
    private readonly options: { owner: string; leaseMs: number; slots: number; onEnd: () => void; onError: (error: unknown) => void },
  ) {}

  get busy(): boolean {
    return this.#serving.size > 0;
  }

  /** Every slot serves work: claim() takes none now. */
  get full(): boolean {
    return this.#serving.size >= Math.max(1, this.options.slots);
  }

  /** Claims one plan's LLM work and starts serving it; false when there is none (or every slot is busy). */
  async claim(): Promise<boolean> {
    if (this.full) return false;
    const work = await this.store.llm.claim(this.options.owner, this.options.leaseMs, Object.keys(this.drivers));
    if (!work) return false;
    const controller = new AbortController();
    this.#serving.set(work.token, { work, controller });
    const running = (async () => {
      try {
        const driver = this.drivers[work.mode];
        if (!driver) throw new Error(`this worker cannot serve the LLM work of a ${work.mode} plan (${work.planId})`);
        await driver.serve(work, controller.signal);
      } catch (error) {
        if (!controller.signal.aborted) {
          await this.store.llm.failed(work, work.attempts + 1, UNCOUNTED_FAILURE_DELAY_MS).catch(() => undefined);
          this.options.onError(error);
        }
      } finally {
        // Served, counted or aborted: a lease still held (an abort) is given back, the requests stay due.
        await this.store.llm.release(work).catch(() => undefined);
        this.#serving.delete(work.token);
        this.options.onEnd();
      }
    })();
    this.#running.add(running);
    void running.finally(() => this.#running.delete(running));
    return true;
  }

  /** Extends the leases of the work being served; a renewal that fails aborts that call. */
  async renew(): Promise<void> {
    for (const { work, controller } of [...this.#serving.values()]) {
      if (!(await this.store.llm.renew(work, this.options.leaseMs))) controller.abort(new Error('lease lost, or the plan is no longer served'));
    }
  }

  /** Aborts the calls in flight (their work stays due) and waits for the slots to be free. */
  async stop(): Promise<void> {
    for (const { controller } of this.#serving.values()) controller.abort(new Error('shutdown'));
    await Promise.all([...this.#running]);
  }
}
