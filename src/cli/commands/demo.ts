import type { Command } from 'commander';
import { UsageError } from '../../errors/errors.js';
import type { Dotplan } from '../../operations/dotplan.js';
import type { NodeRecord } from '../../store/index.js';
import { graphOrder } from '../../plans/graph-order.js';
import { createFlags, withFlags } from '../flags.js';
import { parseSetFlags, setOption } from '../set-flags.js';
import { formatMs } from '../../worker/progress.js';
import { formatTable, type CliIO } from '../io.js';
import { announceDemo } from './demo-intro.js';
import { runReflectionDemo } from './demo-reflection.js';
import { runAgentsDemo } from './demo-agents.js';
import { runDemoPlan } from './demo-run.js';
import type { GetContext } from './index.js';

const DEMO_TEMPLATE = 'research-report';
const DEMO_VALUES = { topic: 'DOT execution plans' };

/** `dotplan demo`: the README's install-and-run command. */
export function registerDemoCommand(program: Command, getContext: GetContext): void {
  program
    .command('demo')
    .description(
      `create a plan from a shipped template (default ${DEMO_TEMPLATE}) and run it to completion in-process, answering questions on the terminal (or with their default answers)`,
    )
    .option('--template <name|path>', 'template to run', DEMO_TEMPLATE)
    .addOption(setOption())
    .option('--json', 'print events as JSON lines')
    .option('--reflection', 'run a reflection plan offline instead: the LLM is a scripted server replaying a recorded run')
    .option('--agents', 'run seed 002\'s multi-agent example offline instead: a leader, two ReAct searchers, a writer and "Publish?"')
    .option('--interop', 'run the interop example offline instead: a tool of an MCP server, then an A2A agent that asks a question (both served in-process)')
    .action(async (opts: { template: string; set?: string[]; json?: boolean; reflection?: boolean; agents?: boolean; interop?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      if (opts.interop) {
        if (opts.set || opts.reflection || opts.agents || opts.template !== DEMO_TEMPLATE)
          throw new UsageError('--interop runs its own plan: it takes no --template, --set, --reflection or --agents');
        // Loaded here: the MCP and A2A servers' SDKs are for this demo only.
        const { runInteropDemo } = await import('./demo-interop.js');
        return runInteropDemo(ctx, opts.json === true);
      }
      if (opts.agents) {
        if (opts.set || opts.reflection || opts.template !== DEMO_TEMPLATE)
          throw new UsageError('--agents runs its own recorded plan: it takes no --template, --set or --reflection');
        return runAgentsDemo(ctx, opts.json === true);
      }
      if (opts.reflection) {
        if (opts.set || opts.template !== DEMO_TEMPLATE) throw new UsageError('--reflection runs its own recorded plan: it takes no --template or --set');
        return runReflectionDemo(ctx, opts.json === true);
      }
      const values = opts.set ? parseSetFlags(opts.set) : opts.template === DEMO_TEMPLATE ? DEMO_VALUES : {};
      const started = Date.now();
      if (!opts.json)
        announceDemo(
          ctx,
          `dotplan demo: a plan from the template ${opts.template}, run to completion by a worker in this process (questions: on the terminal)`,
        );
      const dotplan = await ctx.dotplan({ create: true });
      const after = await dotplan.events.lastId();
      const plan = await withFlags(createFlags, () => dotplan.create({ template: opts.template, values }));
      if (!opts.json) ctx.io.err(`  plan ${plan.id} "${plan.title}" on ${dotplan.backend}; one line per status change:`);
      const last = await runDemoPlan(dotplan, plan.id, after, ctx.io, opts.json === true, async (node) => ({
        text: await askPerson(node, ctx.io, opts.json === true),
      }));
      if (!opts.json) await printSummary(dotplan, plan.id, Date.now() - started, ctx.io);
      if (last?.to !== 'completed') ctx.exitCode = 1;
    });
}

/** Asks on a terminal; takes the node's `default` answer when stdin is not one. */
async function askPerson(node: NodeRecord, io: CliIO, quiet: boolean): Promise<string> {
  const question = node.attributes.question ?? `Answer for ${node.id}?`;
  const fallback = node.attributes.default ?? 'yes';
  if (!io.stdin.isTTY) {
    if (!quiet) io.err(`  ? ${question}\n  → ${fallback} (the node's default answer: standard input is not a terminal)`);
    return fallback;
  }
  const typed = (await io.stdin.ask(`  ? ${question} [${fallback}] `)).trim();
  return typed === '' ? fallback : typed;
}

async function printSummary(dotplan: Dotplan, planId: string, elapsedMs: number, io: CliIO): Promise<void> {
  const [plan, nodes, edges] = await Promise.all([dotplan.plan(planId), dotplan.nodes(planId), dotplan.edges(planId)]);
  const counts = new Map<string, number>();
  for (const n of nodes) counts.set(n.status, (counts.get(n.status) ?? 0) + 1);
  const sinks = nodes.filter((n) => !edges.some((e) => e.from === n.id) && n.status === 'done');
  io.out(`\nPlan ${plan.id} ${plan.status} in ${formatMs(elapsedMs)}: ${[...counts].map(([s, c]) => `${c} ${s}`).join(', ')}`);
  if (plan.error) io.out(`Error: ${plan.error}`);
  io.out(
    formatTable([
      ['NODE', 'STATUS', 'ATTEMPTS', 'OUTPUT / ANSWER / ERROR'],
      ...graphOrder(nodes, edges).map((n) => [n.id, n.status, String(n.attempts), clip(n.error ?? n.answer ?? n.output ?? '')]),
    ]),
  );
  for (const sink of sinks) io.out(`\nResult of ${sink.id}:\n${sink.output ?? ''}`);
  io.out(`\nInspect it: dotplan plan show ${plan.id} · dotplan plan events ${plan.id} · dotplan render <file>`);
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 70 ? `${line.slice(0, 67)}...` : line;
}
