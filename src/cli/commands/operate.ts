import type { Command } from 'commander';
import { DotplanError } from '../../errors/errors.js';
import { assertNodeMove } from '../../state/node-moves.js';
import type { Store } from '../../store/index.js';
import { printJson } from '../io.js';
import type { GetContext } from './index.js';

/** Person and operator commands: answer a question, retry or skip a node, cancel a plan. */
export function registerOperateCommands(program: Command, getContext: GetContext): void {
  program
    .command('answer')
    .description('answer a node that is waiting for input (awaiting_input → done); the plan goes on')
    .argument('<plan>', 'plan id')
    .argument('<node>', 'node id')
    .argument('<text>', 'the answer')
    .option('--json', 'print the node as JSON')
    .action(async (planId: string, nodeId: string, text: string, opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const node = await (await ctx.store()).answerNode(planId, nodeId, text, 'person');
      if (opts.json) printJson(ctx.io, node);
      else ctx.io.out(`${planId} ${nodeId}: answered ${JSON.stringify(text)}`);
    });

  const node = program.command('node').description('operator moves on one node');
  const operatorMove = (name: string, to: 'ready' | 'skipped', description: string, done: string) =>
    node
      .command(name)
      .description(description)
      .argument('<plan>', 'plan id')
      .argument('<node>', 'node id')
      .option('--reason <text>', 'why, recorded in the events')
      .action(async (planId: string, nodeId: string, opts: { reason?: string }, command: Command) => {
        const ctx = await getContext(command);
        const store = await ctx.store();
        // Check the move first, so that a refused one does not resume a failed plan either.
        assertNodeMove({ node: nodeId, from: (await store.getNode(planId, nodeId)).status, to, driver: 'operator' });
        const failed = await isFailedPlan(store, planId);
        await store.applyNodeMoves(planId, [{ node: nodeId, to }], 'operator', opts.reason ?? `${done} by an operator`);
        // Resume after the move: a plan resumed first finds its failed node and nothing left to run, and fails again at once.
        if (failed) await store.setPlanStatus(planId, 'running', 'operator', 'resumed by an operator');
        ctx.io.out(`${planId} ${nodeId}: ${to}`);
      });
  operatorMove('retry', 'ready', 'run a failed node again (failed → ready, attempts start afresh); a failed plan resumes', 'retried');
  operatorMove(
    'skip',
    'skipped',
    'skip a node that has not run (pending, ready, failed or awaiting_input → skipped); its dependants go on',
    'skipped',
  );

  program
    .commands.find((c) => c.name() === 'plan')
    ?.command('cancel')
    .description('cancel a plan: every node that has not finished is cancelled')
    .argument('<id>', 'plan id')
    .option('--reason <text>', 'why, recorded in the events')
    .action(async (planId: string, opts: { reason?: string }, command: Command) => {
      const ctx = await getContext(command);
      const plan = await (await ctx.store()).cancelPlan(planId, 'operator', opts.reason ?? 'cancelled by an operator');
      ctx.io.out(`${plan.id}: ${plan.status}`);
    });
}

/** Whether the plan is failed (to be resumed by the move); refuses plans whose nodes an operator may not move. */
async function isFailedPlan(store: Store, planId: string): Promise<boolean> {
  const plan = await store.getPlan(planId);
  if (plan.status !== 'failed' && plan.status !== 'running' && plan.status !== 'paused') {
    throw new DotplanError('INVALID_INPUT', `plan ${planId} is ${plan.status}; only a running, paused or failed plan's nodes can be retried or skipped`);
  }
  return plan.status === 'failed';
}
