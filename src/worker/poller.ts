import cron, { type ScheduledTask } from 'node-cron';
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
  onError: (error: unknown) => void;
}

export class Poller {
  private readonly task: ScheduledTask;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private stopping = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: PollerOptions) {
    assertCron(options.cron);
    this.task = cron.createTask(options.cron, () => this.wake(), { noOverlap: true });
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
    await this.task.destroy();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      this.woken = false;
      let more = false;
      try {
        more = await this.options.tick();
      } catch (error) {
        this.options.onError(error);
      }
      if (more || this.woken || this.stopping) continue;
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        if (this.woken || this.stopping) resolve();
      });
      this.wakeUp = undefined;
    }
  }
}

export function assertCron(expression: string): void {
  const check = cron.validateDetailed(expression);
  if (!check.valid) {
    const detail = check.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    throw new DotplanError('INVALID_INPUT', `worker.poll "${expression}" is not a cron expression (${detail}); e.g. "*/30 * * * * *" polls every 30 seconds`);
  }
}
