import { fileURLToPath } from 'node:url';
import { loadScript, startScriptedServer } from '../../llm/scripted-server.js';
import { endsPlan } from '../../store/index.js';
import { formatMs, ProgressPrinter } from '../../worker/progress.js';
import type { CliContext } from '../context.js';

const SCRIPT = fileURLToPath(new URL('../../../demo/reflection-script.json', import.meta.url));
const GOAL = 'What do we know about ACME Corp? Answer in one sentence.';

/**
 * `dotplan demo --reflection`: a reflection plan run offline — the LLM is the scripted
 * OpenAI-compatible server answering from a recorded run (demo/reflection-script.json), reached
 * through the real `openai` client; the worker plans, runs, re-plans and writes the final answer.
 */
export async function runReflectionDemo(ctx: CliContext, json: boolean): Promise<void> {
  const server = await startScriptedServer({ script: await loadScript(SCRIPT) });
  try {
    const dotplan = await ctx.dotplan();
    const started = Date.now();
    const after = await dotplan.events.lastId();
    const plan = await dotplan.create({ goal: GOAL });
    if (!json)
      ctx.io.err(`dotplan demo --reflection: plan ${plan.id} on ${dotplan.store.backend}; the LLM is a scripted server at ${server.url}\n  goal: ${GOAL}`);
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
      ctx.io.out(`\nInspect it: dotplan plan show ${done.id} · dotplan plan calls ${done.id} · dotplan plan revisions ${done.id}`);
    }
    if (last?.to !== 'completed') ctx.exitCode = 1;
  } finally {
    await server.close();
  }
}
