import { Option, type Command } from 'commander';
import { callView } from '../../llm/call-record.js';
import { formatDiagnostic, type Diagnostic } from '../../model/diagnostics.js';
import type { LlmCallRecord } from '../../store/index.js';
import { formatTable, printJson } from '../io.js';
import type { GetContext } from './index.js';
import { plural } from '../../model/plural.js';

/** `plan calls`: the calls a reflection plan made to the model — and, with --script, a script that replays them offline. */
export function registerPlanLlmCommands(plan: Command, getContext: GetContext): void {
  plan
    .command('calls')
    .description("list a plan's LLM calls: purpose, model, tokens, time, outcome (and the problems of a refused reply)")
    .argument('<id>', 'plan id')
    .option('--json', 'print {"calls":[{"purpose","model","promptTokens","completionTokens","ms","outcome","diagnostics"?}]}')
    .addOption(
      new Option('--script', 'print a script for `dotplan llm serve` that gives the same replies in the same order (replay a real run offline)').conflicts(
        'json',
      ),
    )
    .action(async (id: string, opts: { json?: boolean; script?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const calls = await (await ctx.dotplan()).calls(id);
      if (opts.script) {
        printJson(ctx.io, replayScript(calls));
        return;
      }
      if (opts.json) {
        printJson(ctx.io, { calls: calls.map(callView) });
        return;
      }
      if (calls.length === 0) {
        ctx.io.err(`plan ${id} has made no LLM calls`);
        return;
      }
      ctx.io.out(
        formatTable([
          ['#', 'PURPOSE', 'NODE', 'MODEL', 'TOKENS', 'MS', 'OUTCOME'],
          ...calls.map((c, i) => [
            String(i + 1),
            c.purpose,
            c.nodeId ?? '',
            c.model,
            `${c.promptTokens}+${c.completionTokens}`,
            String(c.ms),
            c.outcome + (Array.isArray(c.diagnostics) ? ` (${plural(c.diagnostics.length, 'problem')})` : ''),
          ]),
        ]),
      );
      for (const [i, c] of calls.entries()) {
        const problems = problemLines(c.diagnostics);
        if (problems.length > 0) ctx.io.out(`\ncall ${i + 1} (${c.purpose}, ${c.outcome}):\n${problems.map((p) => `  ${p}`).join('\n')}`);
      }
    });
}

/** A refused reply's diagnostics (lines counted in the reply) or an endpoint's error, one line each. */
function problemLines(diagnostics: unknown): string[] {
  if (!Array.isArray(diagnostics)) return [];
  return diagnostics.map((d: unknown) => {
    if (!isDiagnostic(d)) return JSON.stringify(d);
    return formatDiagnostic(d, d.line !== undefined ? 'reply' : undefined);
  });
}

function isDiagnostic(value: unknown): value is Diagnostic {
  const d = value as Partial<Diagnostic> | null;
  return typeof d === 'object' && d !== null && typeof d.code === 'string' && typeof d.message === 'string' && typeof d.severity === 'string';
}

/** The replies of a run, in order, as a `dotplan llm serve` script (calls that failed are left out: the replay answers them). */
export function replayScript(calls: readonly LlmCallRecord[]): { replies: Array<Record<string, unknown>> } {
  return {
    replies: calls
      .filter((c) => c.reply !== undefined)
      .map((c) => {
        const usage = { prompt_tokens: c.promptTokens, completion_tokens: c.completionTokens };
        if (c.purpose === 'verify') {
          try {
            return { json: JSON.parse(c.reply!) as unknown, usage };
          } catch {
            // not JSON: give the text back as it was
          }
        }
        return { content: c.reply, usage };
      }),
  };
}
