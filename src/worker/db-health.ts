import { isDatabaseUnreachable } from '../store/unreachable.js';

/**
 * Whether a worker reaches its database, as its own calls find: the first call that meets an
 * unreachable database reports `lost` (once, however many calls fail after it), the first call that
 * succeeds after that reports `back` with how long it was gone. Each part of the worker (the poll
 * loop, the result writer, lease renewal, the LLM slot, the tool logs) tells it how its calls went;
 * the host prints one line per change.
 */
export class DatabaseHealth {
  #lostAt: number | undefined;

  constructor(
    private readonly on: {
      lost: (error: unknown) => void;
      back: (downMs: number) => void;
    },
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the database was unreachable at the last call. */
  get down(): boolean {
    return this.#lostAt !== undefined;
  }

  /** A call failed: true when it is because the database cannot be reached (reported, nothing else to do), false for any other error. */
  failed(error: unknown): boolean {
    if (!isDatabaseUnreachable(error)) return false;
    if (this.#lostAt === undefined) {
      this.#lostAt = this.now();
      this.on.lost(error);
    }
    return true;
  }

  /** A call reached the database. */
  reached(): void {
    if (this.#lostAt === undefined) return;
    const downMs = this.now() - this.#lostAt;
    this.#lostAt = undefined;
    this.on.back(downMs);
  }
}
