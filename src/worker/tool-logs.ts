import type { EventInput } from '../engine/step.js';
import type { EventFeed } from '../store/types.js';

/** A line a tool wrote with `ctx.log`, with where it came from. */
export interface ToolLog {
  /** The plan the node is in. */
  planId: string;
  /** The node whose tool wrote it. */
  nodeId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The line as the tool wrote it. */
  message: string;
}

/** How much of one log line the audit log keeps. */
export const LOG_CHARS = 2000;

/**
 * Where a worker's tools' `ctx.log` lines go: to the host's `log` function when it gave one, else into
 * the audit log as `log` events of the node (driver `engine`, the worker as actor), written in the
 * order they were logged, in batches, and all of them before the attempt's end is written.
 */
export class ToolLogs {
  readonly #queue: EventInput[] = [];
  #writing: Promise<void> | undefined;

  constructor(
    private readonly options: {
      events: Pick<EventFeed, 'append'>;
      owner: string;
      sink?: ((entry: ToolLog) => void) | undefined;
      onError: (error: unknown) => void;
    },
  ) {}

  log(entry: ToolLog): void {
    const { sink, owner } = this.options;
    if (sink) {
      try {
        sink(entry);
      } catch (error) {
        this.options.onError(error);
      }
      return;
    }
    const message = String(entry.message);
    const reason = message.length > LOG_CHARS ? `${message.slice(0, LOG_CHARS)}… (${message.length - LOG_CHARS} more characters)` : message;
    this.#queue.push({ planId: entry.planId, node: entry.nodeId, kind: 'log', driver: 'engine', actor: owner, reason, detail: { attempt: entry.attempt } });
    this.#writing ??= this.#drain();
  }

  /** Resolves once every line logged so far is written (or its write failed and was reported). */
  flushed(): Promise<void> {
    return this.#writing ?? Promise.resolve();
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        await this.options.events.append(this.#queue.splice(0)).catch(this.options.onError);
      }
    } finally {
      this.#writing = undefined;
    }
  }
}
