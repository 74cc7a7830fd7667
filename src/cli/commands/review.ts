import type { Command } from 'commander';
import { UsageError } from '../../errors/errors.js';
import { reviewCommands } from '../../model/command-line.js';
import { reviewFlags, withFlags } from '../flags.js';
import { formatMs } from '../../worker/progress.js';
import { formatTable, printJson, readInput } from '../io.js';
import { printReport } from './apply-report.js';
import type { GetContext } from './index.js';

/** People in the loop (seed 003): `plan approve | reject | modify` of a plan waiting for review, and `dotplan inbox`. */
export function registerReviewCommands(program: Command, plan: Command, getContext: GetContext): void {
  plan
    .command('approve')
    .description('approve a plan waiting for review: it starts running')
    .argument('<id>', 'plan id')
    .option('--reason <text>', 'why (recorded in the review event)')
    .option('--by <name>', 'who reviews (default: the OS user)')
    .action(async (id: string, opts: { reason?: string; by?: string }, command: Command) => {
      const ctx = await getContext(command);
      const plan = await (await ctx.dotplan()).approve(id, { ...(opts.reason ? { reason: opts.reason } : {}), ...(opts.by ? { by: opts.by } : {}) });
      ctx.io.out(`plan ${plan.id} approved: ${plan.status}`);
    });

  plan
    .command('reject')
    .description('reject a plan waiting for review: it ends rejected and nothing of it ever runs')
    .argument('<id>', 'plan id')
    .requiredOption('--reason <text>', 'why (required: the author reads it)')
    .option('--by <name>', 'who reviews (default: the OS user)')
    .action(async (id: string, opts: { reason: string; by?: string }, command: Command) => {
      const ctx = await getContext(command);
      const dotplan = await ctx.dotplan();
      const plan = await withFlags(reviewFlags, () => dotplan.reject(id, { reason: opts.reason, ...(opts.by ? { by: opts.by } : {}) }));
      ctx.io.out(`plan ${plan.id} rejected`);
    });

  plan
    .command('modify')
    .description(
      'change a plan waiting for review — a DOT file as a new revision by you, or a suggestion the LLM rewrites a reflection plan with — and keep it waiting for review',
    )
    .argument('<id>', 'plan id')
    .option('--dot <file>', 'the plan as it should be (from plan show --format dot), or - for standard input')
    .option('--suggestion <text>', 'what the LLM should change (reflection plans)')
    .option('--reason <text>', 'the update log of the new revision')
    .option('--by <name>', 'who reviews (default: the OS user)')
    .action(async (id: string, opts: { dot?: string; suggestion?: string; reason?: string; by?: string }, command: Command) => {
      if ((opts.dot === undefined) === (opts.suggestion === undefined)) throw new UsageError('give exactly one of --dot <file> or --suggestion <text>');
      const ctx = await getContext(command);
      const who = { ...(opts.reason ? { reason: opts.reason } : {}), ...(opts.by ? { by: opts.by } : {}) };
      const dotplan = await ctx.dotplan();
      if (opts.dot !== undefined) {
        const source = opts.dot === '-' ? '<stdin>' : opts.dot;
        const dot = await readInput(ctx.io, opts.dot);
        const report = await withFlags(reviewFlags, () => dotplan.modify(id, { dot, source }, who));
        printReport(ctx, id, report, source, false);
        if (report.applied) ctx.io.out(`plan ${id} waits for review again`);
        return;
      }
      await withFlags(reviewFlags, () => dotplan.modify(id, { suggestion: opts.suggestion! }, who));
      ctx.io.out(`plan ${id}: the suggestion goes to the LLM; the plan waits for review again (see plan show / plan revisions)`);
    });

  program
    .command('inbox')
    .description('everything waiting for a person — questions and plan reviews — across plans, oldest first, with the command that answers it')
    .option('--plan <id>', "only this plan and the plans below it (its agent nodes' child plans)")
    .option('--json', 'print [{"kind","planId","planTitle","nodeId"?,"question"?,"options"?,"since","waitedMs","command","commands","path"?}]')
    .action(async (opts: { plan?: string; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const entries = (await (await ctx.reads()).inbox(opts.plan !== undefined ? { planId: opts.plan } : {})).map((e) => ({
        ...e,
        // A review is decided by approving, rejecting or modifying it: each has its command.
        commands: e.kind === 'review' ? reviewCommands(e.planId) : [e.command],
      }));
      if (opts.json) {
        printJson(
          ctx.io,
          entries.map((e) => ({ ...e, since: e.since.toISOString() })),
        );
        return;
      }
      if (entries.length === 0) {
        ctx.io.err('nothing waits for a person');
        return;
      }
      ctx.io.out(
        formatTable([
          ['WAITING', 'KIND', 'PLAN', 'NODE', 'QUESTION', 'OPTIONS', 'ANSWER WITH'],
          ...entries.flatMap((e) => [
            [formatMs(e.waitedMs), e.kind, e.planId, e.nodeId ?? '', e.question ?? e.planTitle, e.options?.join(',') ?? '', e.commands[0]!],
            ...(e.path ? [['', '', `(${e.path})`, '', '', '', '']] : []),
            ...e.commands.slice(1).map((c) => ['', '', '', '', '', '', c]),
          ]),
        ]),
      );
    });
}
