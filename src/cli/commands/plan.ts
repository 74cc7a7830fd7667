import type { Command } from 'commander';
import { Option } from 'commander';
import { InvalidInputError, UsageError } from '../../errors/errors.js';
import { PLAN_STATUSES, type PlanStatus } from '../../model/types.js';
import { planJson } from '../../plans/plan-view.js';
import { parseSetFlags } from '../../templates/index.js';
import { formatTable, printJson, readInput } from '../io.js';
import { registerPlanControlCommands } from './plan-control.js';
import { registerPlanEditCommand } from './plan-edit.js';
import { registerPlanHistoryCommands } from './plan-history.js';
import { registerPlanLlmCommands } from './plan-llm.js';
import { registerPlanReportCommand } from './plan-report.js';
import { registerReviewCommands } from './review.js';
import type { GetContext } from './index.js';

export function registerPlanCommands(program: Command, getContext: GetContext): void {
  const plan = program.command('plan').description('create, list, inspect and control plans');

  plan
    .command('create')
    .description('create a plan from a template, a DOT file or a goal (a reflection plan the LLM writes) and start it; prints its id')
    .option('--template <name|path>', 'template name (see template list) or path')
    .option('--goal <text>', 'what a reflection plan should achieve: the LLM writes and rewrites its plan (needs an OpenAI-compatible endpoint)')
    .option('--set <key=value>', 'template parameter (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--dot <file>', 'a DOT file (or - for standard input)')
    .option('--title <title>', 'plan title (default: the graph label)')
    .option('--review', 'wait for a reviewer (plan approve / reject / modify) before anything runs, as review="required" does')
    .option('--by <name>', 'who creates it (default: the OS user)')
    .option('--json', 'print {"id": ..., "status": ...}')
    .action(
      async (
        opts: { template?: string; set?: string[]; dot?: string; goal?: string; title?: string; review?: boolean; by?: string; json?: boolean },
        command: Command,
      ) => {
        if ([opts.template, opts.dot, opts.goal].filter((o) => o !== undefined).length !== 1)
          throw new InvalidInputError('give exactly one of --template <name|path>, --dot <file> or --goal <text>');
        if (opts.set && !opts.template)
          throw new InvalidInputError(`--set goes with --template; ${opts.dot ? 'a DOT file carries its own values' : 'a --goal plan is written by the LLM'}`);
        const ctx = await getContext(command);
        const dotplan = await ctx.dotplan();
        const title = opts.title !== undefined ? { title: opts.title } : {};
        const input =
          opts.goal !== undefined
            ? { goal: opts.goal, ...title }
            : opts.template
              ? { template: opts.template, values: parseSetFlags(opts.set ?? []), ...title }
              : { dot: await readInput(opts.dot!), source: opts.dot === '-' ? '<stdin>' : opts.dot!, ...title };
        const created = await dotplan.create(input, { ...(opts.by ? { by: opts.by } : {}), ...(opts.review ? { review: true } : {}) });
        if (opts.json) printJson(ctx.io, { id: created.id, status: created.status });
        else ctx.io.out(created.id);
      },
    );

  plan
    .command('list')
    .description('list plans, newest first')
    .addOption(new Option('--status <status>', 'only plans in this status').choices([...PLAN_STATUSES]))
    .option('--json', 'print JSON')
    .action(async (opts: { status?: PlanStatus; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const plans = (await (await ctx.dotplan()).plans(opts.status ? { status: opts.status } : {})).reverse();
      if (opts.json) {
        printJson(
          ctx.io,
          plans.map((p) => ({
            id: p.id,
            status: p.status,
            title: p.title,
            template: p.template,
            createdAt: p.createdAt.toISOString(),
            updatedAt: p.updatedAt.toISOString(),
          })),
        );
        return;
      }
      if (plans.length === 0) {
        ctx.io.err('no plans yet: dotplan plan create --template <name> (see dotplan template list)');
        return;
      }
      ctx.io.out(formatTable([['ID', 'STATUS', 'UPDATED', 'TITLE'], ...plans.map((p) => [p.id, p.status, p.updatedAt.toISOString(), p.title])]));
    });

  plan
    .command('show')
    .description('print a plan with its live node state')
    .argument('<id>', 'plan id')
    .addOption(new Option('--format <format>', 'output format').choices(['dot', 'json']).default('dot'))
    .option('--json', 'same as --format json')
    .option('--revision <n>', 'print revision n as it was written (see plan revisions), without live state')
    .action(async (id: string, opts: { format: 'dot' | 'json'; json?: boolean; revision?: string }, command: Command) => {
      const ctx = await getContext(command);
      const dotplan = await ctx.dotplan();
      if (opts.revision !== undefined) {
        if (!/^[1-9]\d*$/.test(opts.revision)) throw new UsageError(`--revision "${opts.revision}": must be a revision number (1, 2, ...)`);
        ctx.io.out((await dotplan.revision(id, Number(opts.revision))).dot);
        return;
      }
      if (opts.json || opts.format === 'json') {
        const [record, nodes, edges] = await Promise.all([dotplan.plan(id), dotplan.nodes(id), dotplan.edges(id)]);
        printJson(ctx.io, planJson(record, nodes, edges));
      } else {
        ctx.io.out(await dotplan.show(id));
      }
    });

  plan
    .command('events')
    .description("print a plan's audit log: status moves, answers, revisions, notices — who, when, why")
    .argument('<id>', 'plan id')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const events = await (await ctx.dotplan()).history(id);
      if (opts.json) {
        printJson(
          ctx.io,
          events.map((e) => ({ ...e, at: e.at.toISOString() })),
        );
        return;
      }
      ctx.io.out(
        formatTable([
          ['ID', 'AT', 'KIND', 'NODE', 'WHO', 'MOVE', 'WHY'],
          ...events.map((e) => [
            String(e.id),
            e.at.toISOString(),
            e.kind,
            e.nodeId ?? '(plan)',
            e.actor ? `${e.driver}:${e.actor}` : e.driver,
            e.kind === 'status' ? `${e.from || '∅'} → ${e.to}` : '',
            [e.reason, e.detail ? JSON.stringify(e.detail) : undefined].filter(Boolean).join(' '),
          ]),
        ]),
      );
    });

  registerPlanControlCommands(plan, getContext);
  registerPlanHistoryCommands(plan, getContext);
  registerPlanEditCommand(plan, getContext);
  registerPlanLlmCommands(plan, getContext);
  registerPlanReportCommand(plan, getContext);
  registerReviewCommands(program, plan, getContext);
}
