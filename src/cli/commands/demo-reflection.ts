import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadScript, startScriptedServer } from '../../llm/scripted-server.js';
import { Dotplan } from '../../operations/dotplan.js';
import { endsPlan, openStore } from '../../store/index.js';
import { formatMs, ProgressPrinter } from '../../worker/progress.js';
import type { CliContext } from '../context.js';
import { announceDemo, displayPath } from './demo-intro.js';
import { packagePath } from '../../config/package-path.js';

const SCRIPT = packagePath('demo', 'reflection-script.json');
const GOAL = 'What do we know about ACME Corp? Answer in one sentence.';
/** The demo's own database, under the working directory: the scripted model is for the demo's plan alone. */
const OWN_DATABASE = join('.dotplan', 'demo-reflection.db');

/**
 * `dotplan demo --reflection`: a reflection plan run offline — the LLM is the scripted
 * OpenAI-compatible server answering from a recorded run (demo/reflection-script.json), reached
 * through the real `openai` client; the worker plans, runs, re-plans and writes the final answer.
 * It runs in a database of its own, made afresh each time (`.dotplan/demo-reflection.db`): a worker
 * serves the LLM work of every plan in its database, and the recorded replies fit the demo's plan
 * only — in the configured database they would be applied to the user's own reflection plans.
 */
export async function runReflectionDemo(ctx: CliContext, json: boolean): Promise<void> {
  const started = Date.now();
  const file = join(ctx.io.cwd, OWN_DATABASE);
  if (!json)
    announceDemo(
      ctx,
      `dotplan demo --reflection: a reflection plan run offline to its final answer; a scripted server replays a recorded LLM\n  goal: ${GOAL}`,
      file,
    );
  mkdirSync(join(ctx.io.cwd, '.dotplan'), { recursive: true });
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
  const server = await startScriptedServer({ script: await loadScript(SCRIPT) });
  const dotplan = new Dotplan(
    await openStore({ url: `file:${file}`, cwd: ctx.io.cwd, retryDefaults: ctx.config.retry }),
    await ctx.tools(),
    ctx.config,
    ctx.io.cwd,
  );
  try {
    const after = await dotplan.events.lastId();
    const plan = await dotplan.create({ goal: GOAL });
    if (!json) ctx.io.err(`  plan ${plan.id} on ${dotplan.backend}; the LLM is the scripted server at ${server.url}; one line per event:`);
    const printer = new ProgressPrinter((line) => (json ? ctx.io.out(line) : ctx.io.err(line)), json);
    const worker = dotplan.worker({ llm: { baseURL: server.url } }).start();
    worker.on('worker:error', (error) => ctx.io.err(`worker: ${error instanceof Error ? error.message : String(error)}`));
    const watcher = dotplan.events.follow({ planId: plan.id, after }, (event) => {
      printer.print(event);
      return endsPlan(event);
    });
    const last = await watcher.ended.finally(() => worker.stop());
    const [done, calls] = await Promise.all([dotplan.plan(plan.id), dotplan.calls(plan.id)]);
    if (!json) {
      const tokens = calls.reduce((sum, c) => sum + c.promptTokens + c.completionTokens, 0);
      ctx.io.out(
        `\nPlan ${done.id} ${done.status} in ${formatMs(Date.now() - started)}: ${calls.length} LLM calls (${tokens} tokens), revision ${done.revision}`,
      );
      if (done.error) ctx.io.out(`Error: ${done.error}`);
      if (done.result) ctx.io.out(`\nFinal answer:\n${done.result}`);
      const db = `--db file:${displayPath(ctx.io.cwd, file)}`;
      ctx.io.out(`\nInspect it: dotplan ${db} plan show ${done.id} · dotplan ${db} plan calls ${done.id} · dotplan ${db} plan revisions ${done.id}`);
    }
    if (last?.to !== 'completed') ctx.exitCode = 1;
  } finally {
    await server.close();
    await dotplan.close();
  }
}
