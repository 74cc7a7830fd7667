import type { Command } from 'commander';
import { Option } from 'commander';
import { UsageError } from '../../errors/errors.js';
import { llmSettings, missingEndpoint } from '../../llm/client.js';
import { formatDiagnostic } from '../../model/diagnostics.js';
import type { CreatedPlan } from '../../operations/dotplan.js';
import { planJson } from '../../plans/plan-view.js';
import type { CliContext } from '../context.js';
import { waitLine } from '../../plans/waits-for.js';
import { GENERATED_PREFIX } from '../../revisions/edit-file.js';
import { createFlags, withFlags } from '../flags.js';
import { parseSetFlags, setOption } from '../set-flags.js';
import { formatTable, printJson, readInput } from '../io.js';
import { registerPlanControlCommands } from './plan-control.js';
import { registerPlanEditCommand } from './plan-edit.js';
import { registerPlanHistoryCommands } from './plan-history.js';
import { registerPlanListCommand } from './plan-list.js';
import { registerPlanLlmCommands } from './plan-llm.js';
import { registerPlanReportCommand } from './plan-report.js';
import { registerReviewCommands } from './review.js';
import { eventJson } from '../../worker/progress.js';
import { cut, moreNote } from '../../report/text.js';
import { formatTree } from '../../operations/tree-views.js';
import { serialGroups } from '../../model/serial-groups.js';
import type { DotplanReads } from '../../operations/dotplan-reads.js';
import type { GetContext } from './index.js';

export function registerPlanCommands(program: Command, getContext: GetContext): void {
  const plan = program.command('plan').description('create, list, inspect and control plans');

  plan
    .command('create')
    .description('create a plan from a template, a DOT file or a goal (a reflection plan the LLM writes) and start it; prints its id')
    .option('--template <name|path>', 'template name (see template list) or path')
    .option('--goal <text>', 'what a reflection plan should achieve: the LLM writes and rewrites its plan (needs an OpenAI-compatible endpoint)')
    .addOption(setOption())
    .option('--dot <file>', 'a DOT file (or - for standard input)')
    .option('--title <title>', 'plan title (default: the graph label)')
    .option('--review', 'wait for a reviewer (plan approve / reject / modify) before anything runs, as review="required" does')
    .option('--by <name>', 'who creates it (default: the OS user)')
    .option('--json', 'print {"id", "status", "warnings"}')
    .action(
      async (
        opts: { template?: string; set?: string[]; dot?: string; goal?: string; title?: string; review?: boolean; by?: string; json?: boolean },
        command: Command,
      ) => {
        if ([opts.template, opts.dot, opts.goal].filter((o) => o !== undefined).length !== 1)
          throw new UsageError('give exactly one of --template <name|path>, --dot <file> or --goal <text>');
        if (opts.set && !opts.template)
          throw new UsageError(`--set goes with --template; ${opts.dot ? 'a DOT file carries its own values' : 'a --goal plan is written by the LLM'}`);
        const ctx = await getContext(command);
        const dotplan = await ctx.dotplan({ create: true });
        const title = opts.title !== undefined ? { title: opts.title } : {};
        const input =
          opts.goal !== undefined
            ? { goal: opts.goal, ...title }
            : opts.template
              ? { template: opts.template, values: parseSetFlags(opts.set ?? []), ...title }
              : { dot: await readInput(ctx.io, opts.dot!), source: opts.dot === '-' ? '<stdin>' : opts.dot!, ...title };
        const created = await withFlags(createFlags, () =>
          dotplan.create(input, { ...(opts.by ? { by: opts.by } : {}), ...(opts.review ? { review: true } : {}) }),
        );
        if (created.mode === 'reflection' && missingEndpoint(llmSettings(ctx.config)) !== undefined) {
          ctx.io.err(
            `warning: no LLM endpoint is configured here (OPENAI_BASE_URL or ${ctx.config.openai.apiKeyEnv}); a worker with one must serve this plan — ` +
              `until one does, it waits (dotplan plan show ${created.id} says for what)`,
          );
        }
        printCreated(
          ctx,
          created,
          'source' in input ? input.source : opts.template !== undefined ? `template ${opts.template}` : undefined,
          opts.json === true,
        );
      },
    );

  plan
    .command('rerun')
    .description(
      'run a stored plan again as a new plan: its latest revision with every node pending (or, --from a node, that node and what follows it; the results before it are carried over), linked to the old one',
    )
    .argument('<id>', 'the plan to run again')
    .option('--from <node>', 'run again from this node on; the done nodes it does not lead to keep their results')
    .option('--title <title>', 'the new plan\'s title (default: the old title with " (rerun)")')
    .option('--by <name>', 'who reruns it (default: the OS user)')
    .option('--json', 'print {"id", "status", "rerunOf", "warnings"}')
    .action(async (id: string, opts: { from?: string; title?: string; by?: string; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const created = await (
        await ctx.dotplan()
      ).rerun(id, {
        ...(opts.from !== undefined ? { from: opts.from } : {}),
        ...(opts.title !== undefined ? { title: opts.title } : {}),
        ...(opts.by ? { by: opts.by } : {}),
      });
      printCreated(ctx, created, `plan ${id}`, opts.json === true);
    });

  registerPlanListCommand(plan, getContext);

  plan
    .command('tree')
    .description("the plan stack of a plan's tree: root → agent node → child …, with status, instance, waiting questions and tokens")
    .argument('<id>', 'any plan of the tree')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const view = await (await ctx.reads()).tree(id);
      if (opts.json) printJson(ctx.io, view);
      else ctx.io.out(formatTree(view));
    });

  plan
    .command('show')
    .description('print a plan with its live node state')
    .argument('<id>', 'plan id')
    .addOption(new Option('--format <format>', 'output format').choices(['dot', 'json']).default('dot'))
    .option('--json', 'same as --format json')
    .addOption(
      new Option('--revision <n>', 'print revision n as it was written (see plan revisions), without live state: DOT only').conflicts(['format', 'json']),
    )
    .action(async (id: string, opts: { format: 'dot' | 'json'; json?: boolean; revision?: string }, command: Command) => {
      const ctx = await getContext(command);
      const dotplan = await ctx.reads();
      if (opts.revision !== undefined) {
        if (!/^[1-9]\d*$/.test(opts.revision)) throw new UsageError(`--revision "${opts.revision}": must be a revision number (1, 2, ...)`);
        ctx.io.out((await dotplan.revision(id, Number(opts.revision))).dot);
        return;
      }
      if (opts.json || opts.format === 'json') {
        const [record, nodes, edges, waits] = await Promise.all([dotplan.plan(id), dotplan.nodes(id), dotplan.edges(id), dotplan.waitingFor(id)]);
        printJson(ctx.io, planJson(record, nodes, edges, waits));
      } else {
        // What it waits for first, as lines dotplan generated (dropped when the file comes back to plan apply).
        const [dot, waits, notes] = await Promise.all([dotplan.show(id), dotplan.waitingFor(id), stackNotes(dotplan, id)]);
        ctx.io.out([...waits.map((w) => `${GENERATED_PREFIX} ${waitLine(w)}`), ...notes.map((n) => `${GENERATED_PREFIX} ${n}`), dot].join('\n'));
      }
    });

  plan
    .command('events')
    .description("print a plan's audit log: status moves, answers, revisions, notices — who, when, why")
    .argument('<id>', 'plan id')
    .option('--tree', "the whole tree's events (the root's and every child plan's), interleaved, each with its plan's instance")
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean; tree?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const dotplan = await ctx.reads();
      if (opts.tree) {
        const view = await dotplan.tree(id);
        const names = new Map(view.plans.map((p) => [p.id, p.instance ?? 'root']));
        const events = await dotplan.events.list({ rootPlanId: view.root });
        if (opts.json)
          printJson(
            ctx.io,
            events.map((e) => ({ ...eventJson(e), instance: names.get(e.planId) ?? e.planId })),
          );
        else {
          const rows = events.map((e) => [
            String(e.id),
            e.at.toISOString(),
            names.get(e.planId) ?? e.planId,
            e.kind,
            e.nodeId ?? '(plan)',
            e.kind === 'status' ? `${e.from || '∅'} → ${e.to}` : '',
            e.reason ?? '',
          ]);
          ctx.io.out(formatTable([['ID', 'AT', 'PLAN', 'KIND', 'NODE', 'MOVE', 'WHY'], ...rows]));
        }
        return;
      }
      const events = await dotplan.history(id);
      if (opts.json) {
        printJson(ctx.io, events.map(eventJson));
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
            [e.reason, e.detail ? shownDetail(e.detail, id) : undefined].filter(Boolean).join(' '),
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

/** An event's detail on one table row: long values (a node's resolved input) cut, with where to read them whole. */
function shownDetail(detail: Record<string, unknown>, planId: string): string {
  const { text, more } = cut(JSON.stringify(detail));
  return more === 0 ? text : `${text} ${moreNote(more, `dotplan plan events ${planId} --json`)}`;
}

/** A new plan's id (`--json`: `{"id", "status", "rerunOf"?, "warnings"}`); its warnings on stderr, each naming the place and the fix. */
function printCreated(ctx: CliContext, created: CreatedPlan, source: string | undefined, json: boolean): void {
  if (json) {
    printJson(ctx.io, {
      id: created.id,
      status: created.status,
      ...(created.rerunOf !== undefined ? { rerunOf: created.rerunOf } : {}),
      warnings: created.warnings,
    });
    return;
  }
  for (const warning of created.warnings) ctx.io.err(formatDiagnostic(warning, source));
  ctx.io.out(created.id);
}

/** `plan show`'s notes on the plan stack and task groups: the plan's parent, each agent node's child, each serial group's order. */
async function stackNotes(dotplan: DotplanReads, planId: string): Promise<string[]> {
  const [nodes, graph, tree] = await Promise.all([dotplan.nodes(planId), dotplan.liveGraph(planId), dotplan.tree(planId)]);
  // The plan and its children as the tree read them (one read for all, not one per agent node); a child
  // made after that read (a worker runs beside) is read alone.
  const inTree = new Map(tree.plans.map((entry) => [entry.id, entry]));
  const plan = inTree.get(planId)!;
  const notes: string[] = [];
  if (plan.parent) notes.push(`child plan of node ${plan.parent.nodeId} of ${plan.parent.planId} (instance ${plan.instance ?? '?'}, root ${tree.root})`);
  for (const node of nodes) {
    if (node.childPlanId === undefined) continue;
    const child = inTree.get(node.childPlanId) ?? (await dotplan.plan(node.childPlanId));
    notes.push(`agent node ${node.id} runs child plan ${child.id} (${child.instance ?? child.agentCode ?? 'child'}, ${child.status})`);
  }
  if (!plan.parent) {
    for (const child of tree.plans.slice(1)) {
      for (const q of child.waiting)
        notes.push(
          `waiting in child plan ${child.id} (${child.instance ?? '?'}): an answer to node ${q.nodeId}; dotplan answer ${child.id} ${q.nodeId} "<your answer>"`,
        );
    }
  }
  for (const group of serialGroups(graph)) notes.push(`serial group ${group.cluster} (parallel=false) runs ${group.members.join(' → ')}`);
  return notes;
}
