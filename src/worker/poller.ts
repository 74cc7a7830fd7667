import type { ScheduledTask } from 'node-cron';
import { nodeCron } from '../config/cron.js';
import { DotplanError } from '../errors/errors.js';

/**
 * The poll loop, with its I/O passed in (pg-boss `worker.ts` style): `tick` does one round of
 * work and says whether more may be waiting; between rounds the loop sleeps until the next cron
 * firing (default every 30 s) or until `wake()` cuts the wait short (a node finished, a person
 * answered, a plan was created).
 */
export interface PollerOptions {
  /** node-cron expression with seconds, e.g. `*\/30 * * * * *`. */
  cron: string;
  /** One round of work. `true`: there may be more right now, run again without waiting. */
  tick: () => Promise<boolean>;
  /**
   * A round failed (the `failures`-th in a row). A number: run the round again after that many ms,
   * and not sooner — wakes meanwhile wait for it (a database that cannot be reached is tried with
   * backoff, not in a loop); undefined: at the next wake or cron firing.
   */
  onError: (error: unknown, failures: number) => number | void;
}

export class Poller {
  private readonly task: ScheduledTask;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private stopping = false;
  private cancelPause: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: PollerOptions) {
    assertCron(options.cron);
    this.task = nodeCron().createTask(options.cron, () => this.wake(), { noOverlap: true });
  }

  start(): void {
    if (this.loop) return;
    void this.task.start();
    this.loop = this.run();
  }

  /** Cuts the current wait short; a wake during a round makes the loop go round once more. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops after the current round. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    this.cancelPause?.();
    await this.task.destroy();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      this.woken = false;
      let more = false;
      try {
        more = await this.options.tick();
        failures = 0;
      } catch (error) {
        const retryMs = this.options.onError(error, ++failures);
        if (typeof retryMs === 'number') {
          await this.pause(retryMs);
          continue;
        }
      }
      if (more || this.woken || this.stopping) continue;
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        if (this.woken || this.stopping) resolve();
      });
      this.wakeUp = undefined;
    }
  }

  /** Waits `ms`; only `stop()` cuts it short. */
  private async pause(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      this.cancelPause = resolve;
      if (this.stopping) resolve();
    });
    clearTimeout(timer);
    this.cancelPause = undefined;
  }
}

export function assertCron(expression: string): void {
  const check = nodeCron().validateDetailed(expression);
  if (!check.valid) {
    const detail = check.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    throw new DotplanError('INVALID_INPUT', `worker.poll "${expression}" is not a cron expression (${detail}); e.g. "*/30 * * * * *" polls every 30 seconds`);
  }
}
