import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildAgentRegistry } from '../../agents/registry.js';
import { parseAgents } from '../../agents/agent-schema.js';
import { DotplanError } from '../../errors/errors.js';
import { loadScript, startScriptedServer } from '../../llm/scripted-server.js';
import { Dotplan } from '../../operations/dotplan.js';
import { formatTree } from '../../operations/tree-views.js';
import { endsPlan, openStore } from '../../store/index.js';
import { formatMs, ProgressPrinter } from '../../worker/progress.js';
import type { CliContext } from '../context.js';
import { announceDemo, displayPath } from './demo-intro.js';
import { packagePath } from '../../config/package-path.js';

const AGENTS = packagePath('demo', 'agents.json');
const SCRIPT = packagePath('demo', 'agents-script.json');
const GOAL = 'Tell me about ACME Corp in one sentence';
const OWN_DATABASE = join('.dotplan', 'demo-agents.db');

/**
 * `dotplan demo --agents`: seed 002's example offline — a leader (the root reflection plan's model)
 * plans a parallel group of two searchers (ReAct agents calling a tool: `searcher_001`,
 * `searcher_002`), a writer (a reflection agent) and a confirm "Publish?", which the demo answers
 * "yes". The agents are the shipped example config (demo/agents.json); the LLM is the scripted server
 * replaying demo/agents-script.json through the real `openai` client; a database of its own.
 */
export async function runAgentsDemo(ctx: CliContext, json: boolean): Promise<void> {
  const started = Date.now();
  const file = join(ctx.io.cwd, OWN_DATABASE);
  if (!json)
    announceDemo(
      ctx,
      `dotplan demo --agents: a leader hands work to two searchers and a writer, then asks "Publish?"; a scripted server replays the LLM\n  goal: ${GOAL}`,
      file,
    );
  mkdirSync(join(ctx.io.cwd, '.dotplan'), { recursive: true });
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
  const parsed = parseAgents((JSON.parse(readFileSync(AGENTS, 'utf8')) as { agents?: unknown }).agents, 'agents');
  if (!parsed.ok) throw new DotplanError('CONFIG', `${AGENTS}: ${parsed.reason}`);
  const server = await startScriptedServer({ script: await loadScript(SCRIPT) });
  const tools = await ctx.tools();
  const dotplan = new Dotplan(
    await openStore({ url: `file:${file}`, cwd: ctx.io.cwd, retryDefaults: ctx.config.retry }),
    tools,
    ctx.config,
    ctx.io.cwd,
    buildAgentRegistry(parsed.value, tools),
  );
  try {
    const after = await dotplan.events.lastId();
    const plan = await dotplan.create({ goal: GOAL });
    const out = (line: string) => (json ? ctx.io.out(line) : ctx.io.err(line));
    if (!json)
      ctx.io.err(
        `  plan ${plan.id}; agents ${dotplan.agents
          .list()
          .map((a) => `${a.code} (${a.kind})`)
          .join(', ')}; one line per event of the tree:`,
      );
    const printer = new ProgressPrinter(out, json);
    const worker = dotplan.worker({ llm: { baseURL: server.url } }).start();
    worker.on('worker:error', (error) => ctx.io.err(`worker: ${error instanceof Error ? error.message : String(error)}`));
    worker.on('question:asked', (question) => {
      if (!json) out(`  ? ${question.question} → "yes" (the demo answers for you)`);
      void dotplan.answer(question.planId, question.nodeId, 'yes', { by: 'demo' }).catch((error: unknown) => ctx.io.err(`answer: ${String(error)}`));
    });
    const watcher = dotplan.events.follow({ after }, (event) => {
      printer.print(event);
      if (!json && event.kind === 'child') void dotplan.tree(plan.id).then((view) => out(indent(formatTree(view))));
      return event.planId === plan.id && endsPlan(event);
    });
    const last = await watcher.ended.finally(() => worker.stop());
    const done = await dotplan.plan(plan.id);
    const view = await dotplan.tree(plan.id);
    if (json) ctx.io.out(JSON.stringify({ tree: view, result: done.result ?? null }));
    else {
      ctx.io.out(`\nPlan ${done.id} ${done.status} in ${formatMs(Date.now() - started)}. The tree:\n${formatTree(view)}`);
      if (done.error) ctx.io.out(`Error: ${done.error}`);
      if (done.result) ctx.io.out(`\nFinal answer:\n${done.result}`);
      const db = `--db file:${displayPath(ctx.io.cwd, file)}`;
      ctx.io.out(`\nInspect it: dotplan ${db} plan tree ${done.id} · dotplan ${db} agent history searcher_001 · dotplan ${db} plan events ${done.id}`);
    }
    if (last?.to !== 'completed') ctx.exitCode = 1;
  } finally {
    await server.close();
    await dotplan.close();
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    | ${line}`)
    .join('\n');
}
