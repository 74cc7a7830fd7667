import type { Command } from 'commander';
import { UsageError } from '../../errors/errors.js';
import { commandLine } from '../../model/command-line.js';
import { printJson } from '../io.js';
import type { GetContext } from './index.js';

/** Person and operator commands on one node: answer a question, retry or skip a node. */
export function registerOperateCommands(program: Command, getContext: GetContext): void {
  program
    .command('answer')
    .description('answer a node that is waiting for input (awaiting_input → done); the plan goes on')
    .argument('<plan>', 'plan id')
    .argument('<node>', 'node id')
    .argument('<text>', 'the answer')
    .option('--by <name>', 'who answers (default: the OS user)')
    .option('--json', 'print the node as JSON')
    .action(async (planId: string, nodeId: string, text: string, opts: { by?: string; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const node = await (await ctx.dotplan()).answer(planId, nodeId, text, { ...(opts.by ? { by: opts.by } : {}) });
      if (opts.json) printJson(ctx.io, node);
      else ctx.io.out(`${planId} ${nodeId}: answered ${JSON.stringify(text)}`);
    });

  const node = program.command('node').description('operator moves on one node');
  const operatorMove = (name: 'retry' | 'skip', description: string) =>
    node
      .command(name)
      .description(description)
      .argument('<plan>', 'plan id')
      .argument('<node>', 'node id')
      .option('--reason <text>', 'why, recorded in the events')
      .option('--by <name>', 'who (default: the OS user)')
      .action(async (planId: string, nodeId: string, opts: { reason?: string; by?: string }, command: Command) => {
        const ctx = await getContext(command);
        const dotplan = await ctx.dotplan();
        const moved = await dotplan[name](planId, nodeId, { ...(opts.reason ? { reason: opts.reason } : {}), ...(opts.by ? { by: opts.by } : {}) });
        ctx.io.out(`${planId} ${nodeId}: ${moved.status}`);
      });
  operatorMove('retry', 'run a failed node again (failed → ready, attempts start afresh); a failed plan resumes');
  operatorMove('skip', 'skip a node that has not run (pending, ready, failed or awaiting_input → skipped); its dependants go on');

  // SPEC §3: a node is `cancelled` only when its plan is. Asked for anyway, say what to do instead.
  node
    .command('cancel', { hidden: true })
    .argument('[plan]')
    .argument('[node]')
    .action((planId: string | undefined, nodeId: string | undefined) => {
      const plan = planId ?? '<plan>';
      throw new UsageError(
        `there is no node cancel: a node is cancelled only with its plan. Skip the node (${commandLine('dotplan', 'node', 'skip', plan, nodeId ?? '<node>')}) ` +
          `or cancel the plan (${commandLine('dotplan', 'plan', 'cancel', plan)})`,
      );
    });
}
