import type { Planner } from '../llm/planner.js';
import type { LlmWork, Store } from '../store/index.js';

/**
 * A worker's one slot for LLM work on reflection plans (a rewrite, the first plan, the final
 * answer): claimed with a lease like a node, renewed while the call runs, given back on error so
 * that another round (or another worker, if this one dies) serves it.
 */
export class LlmSlot {
  #work: LlmWork | undefined;
  #controller: AbortController | undefined;
  #running: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly planner: Planner,
    private readonly options: { owner: string; leaseMs: number; onEnd: () => void; onError: (error: unknown) => void },
  ) {}

  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Claims one plan's LLM work and starts serving it; false when there is none (or the slot is busy). */
  async claim(): Promise<boolean> {
    if (this.#running) return false;
    const work = await this.store.llm.claim(this.options.owner, this.options.leaseMs);
    if (!work) return false;
    const controller = new AbortController();
    this.#work = work;
    this.#controller = controller;
    this.#running = (async () => {
      try {
        await this.planner.serve(work, controller.signal);
      } catch (error) {
        await this.store.llm.release(work).catch(() => undefined);
        if (!controller.signal.aborted) this.options.onError(error);
      } finally {
        this.#work = undefined;
        this.#controller = undefined;
        this.#running = undefined;
        this.options.onEnd();
      }
    })();
    return true;
  }

  /** Extends the lease of the work being served; a lost lease aborts the call (another worker has it). */
  async renew(): Promise<void> {
    const work = this.#work;
    if (!work) return;
    if (!(await this.store.llm.renew(work, this.options.leaseMs))) this.#controller?.abort(new Error('lease lost'));
  }

  /** Aborts the call in flight (its work stays due) and waits for the slot to be free. */
  async stop(): Promise<void> {
    this.#controller?.abort(new Error('shutdown'));
    await this.#running;
  }
}
