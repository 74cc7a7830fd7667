import { Option, type Command } from 'commander';
import { callView } from '../../llm/call-record.js';
import { formatDiagnostic, type Diagnostic } from '../../model/diagnostics.js';
import type { EventRecord, LlmCallRecord } from '../../store/index.js';
import { formatTable, printJson, type CliIO } from '../io.js';
import type { GetContext } from './index.js';
import { plural } from '../../model/plural.js';

/**
 * `plan calls`: the calls a plan made to the model, and its exchanges with external agents (A2A, from
 * the audit log, as redacted) — and, with --script, a script that replays the model's replies offline.
 */
export function registerPlanLlmCommands(plan: Command, getContext: GetContext): void {
  plan
    .command('calls')
    .description("list a plan's LLM calls (purpose, model, tokens, time, outcome, the problems of a refused reply) and its exchanges with external agents")
    .argument('<id>', 'plan id')
    .option(
      '--json',
      'print {"calls":[{"purpose","model","promptTokens","completionTokens","ms","outcome","diagnostics"?}],"remote":[{"at","node","agent","direction","taskId"?,"state"?,"text"?}]}',
    )
    .addOption(
      new Option('--script', 'print a script for `dotplan llm serve` that gives the same replies in the same order (replay a real run offline)').conflicts(
        'json',
      ),
    )
    .action(async (id: string, opts: { json?: boolean; script?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const dotplan = await ctx.dotplan();
      const calls = await dotplan.calls(id);
      if (opts.script) {
        printJson(ctx.io, replayScript(calls));
        return;
      }
      const remote = (await dotplan.events.list({ planId: id, kind: 'remote' })).map(exchangeView);
      if (opts.json) {
        printJson(ctx.io, { calls: calls.map(callView), remote });
        return;
      }
      if (calls.length === 0 && remote.length === 0) {
        ctx.io.err(`plan ${id} has made no LLM calls and no calls to external agents`);
        return;
      }
      if (remote.length > 0) printExchanges(ctx.io, remote);
      if (calls.length === 0) return;
      if (remote.length > 0) ctx.io.out('');
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

/** One exchange with an external agent, from its `remote` event. */
interface ExchangeView {
  at: string;
  node: string;
  agent: string;
  direction: string;
  taskId?: string;
  state?: string;
  text?: string;
}

function exchangeView(e: EventRecord): ExchangeView {
  const d = e.detail ?? {};
  const text = (key: string) => (typeof d[key] === 'string' ? { [key]: d[key] } : {});
  return {
    at: e.at.toISOString(),
    node: e.nodeId ?? '',
    agent: typeof d.agent === 'string' ? d.agent : '',
    direction: typeof d.direction === 'string' ? d.direction : '',
    ...text('taskId'),
    ...text('state'),
    ...text('text'),
  };
}

/** The exchanges as a table; texts cut to one line of 60 characters (`plan events` shows them whole). */
function printExchanges(io: CliIO, exchanges: readonly ExchangeView[]): void {
  const line = (t: string | undefined) => {
    const one = (t ?? '').replace(/\s+/g, ' ');
    return one.length > 60 ? `${one.slice(0, 59)}…` : one;
  };
  io.out(
    formatTable([
      ['#', 'NODE', 'AGENT', 'EXCHANGE', 'STATE', 'TASK', 'TEXT'],
      ...exchanges.map((x, i) => [String(i + 1), x.node, x.agent, x.direction, x.state ?? '', x.taskId ?? '', line(x.text)]),
    ]),
  );
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
