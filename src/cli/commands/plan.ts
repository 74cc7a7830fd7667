import type { Command } from 'commander';
import { Option } from 'commander';
import { PLAN_STATUSES, type PlanStatus } from '../../model/types.js';
import { createPlan } from '../../plans/create-plan.js';
import { livePlanDot, planJson } from '../../plans/plan-view.js';
import { parseSetFlags } from '../../templates/index.js';
import { InvalidInputError } from '../../errors/errors.js';
import { formatTable, printJson, readInput } from '../io.js';
import type { GetContext } from './index.js';

export function registerPlanCommands(program: Command, getContext: GetContext): void {
  const plan = program.command('plan').description('create, list and inspect plans');

  plan
    .command('create')
    .description('create a plan from a template or a DOT file and start it; prints its id')
    .option('--template <name|path>', 'template name (see template list) or path')
    .option('--set <key=value>', 'template parameter (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--dot <file>', 'a DOT file (or - for standard input)')
    .option('--title <title>', 'plan title (default: the graph label)')
    .option('--json', 'print {"id": ...}')
    .action(async (opts: { template?: string; set?: string[]; dot?: string; title?: string; json?: boolean }, command: Command) => {
      if (!!opts.template === !!opts.dot) throw new InvalidInputError('give exactly one of --template <name|path> or --dot <file>');
      if (opts.dot && opts.set) throw new InvalidInputError('--set goes with --template; a DOT file carries its own values');
      const ctx = await getContext(command);
      const [store, tools] = await Promise.all([ctx.store(), ctx.tools()]);
      const title = opts.title !== undefined ? { title: opts.title } : {};
      const created = opts.template
        ? await createPlan(store, tools, { template: opts.template, values: parseSetFlags(opts.set ?? []), ...title })
        : await createPlan(store, tools, { dot: await readInput(opts.dot!), source: opts.dot === '-' ? '<stdin>' : opts.dot!, ...title });
      if (opts.json) printJson(ctx.io, { id: created.id, status: created.status });
      else ctx.io.out(created.id);
    });

  plan
    .command('list')
    .description('list plans, newest first')
    .addOption(new Option('--status <status>', 'only plans in this status').choices([...PLAN_STATUSES]))
    .option('--json', 'print JSON')
    .action(async (opts: { status?: PlanStatus; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const plans = await (await ctx.store()).listPlans(opts.status ? { status: opts.status } : {});
      if (opts.json) {
        printJson(ctx.io, plans.map((p) => ({ id: p.id, status: p.status, title: p.title, template: p.template, createdAt: p.createdAt.toISOString(), updatedAt: p.updatedAt.toISOString() })));
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
    .action(async (id: string, opts: { format: 'dot' | 'json'; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const store = await ctx.store();
      if (opts.json || opts.format === 'json') {
        const [record, nodes, edges] = await Promise.all([store.getPlan(id), store.getNodes(id), store.getEdges(id)]);
        printJson(ctx.io, planJson(record, nodes, edges));
      } else {
        ctx.io.out(await livePlanDot(store, id));
      }
    });

  plan
    .command('events')
    .description("print a plan's status changes: who, when, from, to, why")
    .argument('<id>', 'plan id')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const store = await ctx.store();
      await store.getPlan(id);
      const events = await store.listEvents(id);
      if (opts.json) {
        printJson(ctx.io, events.map((e) => ({ ...e, at: e.at.toISOString() })));
        return;
      }
      ctx.io.out(
        formatTable([
          ['ID', 'AT', 'NODE', 'DRIVER', 'MOVE', 'WHY'],
          ...events.map((e) => [String(e.id), e.at.toISOString(), e.nodeId ?? '(plan)', e.driver, `${e.from || '∅'} → ${e.to}`, e.reason ?? '']),
        ]),
      );
    });
}
