import type { Command } from 'commander';
import type { GetContext } from './index.js';

/** `plan cancel | pause | resume`: an operator's moves of a whole plan. */
export function registerPlanControlCommands(plan: Command, getContext: GetContext): void {
  const control = (name: 'cancel' | 'pause' | 'resume', description: string) =>
    plan
      .command(name)
      .description(description)
      .argument('<id>', 'plan id')
      .option('--reason <text>', 'why, recorded in the events')
      .option('--by <name>', 'who (default: the OS user)')
      .action(async (id: string, opts: { reason?: string; by?: string }, command: Command) => {
        const ctx = await getContext(command);
        const record = await (await ctx.dotplan())[name](id, { ...(opts.reason ? { reason: opts.reason } : {}), ...(opts.by ? { by: opts.by } : {}) });
        ctx.io.out(`${record.id}: ${record.status}`);
      });
  control('cancel', 'cancel a plan: every node that has not finished is cancelled');
  control('pause', 'pause a running plan: no more of its nodes start; running ones finish and their results are kept');
  control('resume', 'resume a paused plan where it stopped');
}
