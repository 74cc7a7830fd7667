import type { Command } from 'commander';
import { dotLimits } from '../../config/dot-limits.js';
import { readDot } from '../../dot/index.js';
import { formatDiagnostic, ValidationError, type Diagnostic } from '../../model/diagnostics.js';
import type { PlanGraph } from '../../model/types.js';
import { APPLY_TIME_CODES, failsReply, parseReply, placeInReply, type ParsedReply } from '../../llm/reply.js';
import { validateGraph, type ValidateOptions } from '../../validate/index.js';
import { printJson, readInput } from '../io.js';
import type { GetContext } from './index.js';
import { plural } from '../../model/plural.js';

/**
 * `dotplan parse-reply`: checks an LLM reply (SPEC §6) the way the engine reads it — the codec, the
 * DOT reader, the validator — without a plan to apply it to. Every diagnostic names the line in the
 * reply. Errors that depend on where the reply is applied (`APPLY_TIME_CODES`) are reported but do
 * not fail the command.
 */
export function registerParseReplyCommand(program: Command, getContext: GetContext): void {
  program
    .command('parse-reply')
    .description(
      'read an LLM reply (@epupdatelog@ ... @epupdatelog@, @EP@ *id=... *graph=digraph ... @EP@) and check its plan; exit 0 when it can be used, 1 when not. ' +
        `Errors that depend on where the reply is applied (${APPLY_TIME_CODES.join(', ')}: tools not registered in this process, node types its engine does not run, an empty question) are reported but do not fail it; applying the reply to a plan refuses them.`,
    )
    .argument('<file>', 'the reply as a text file, or - for standard input')
    .option('--json', 'print {"id", "updateLog", "plan": {"nodes", "edges"}, "dot", "valid", "diagnostics"}')
    .action(async (file: string, opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const source = file === '-' ? '<stdin>' : file;
      const reply = await readInput(ctx.io, file);
      const result = check(reply, ctx.config.reflection.maxReplyBytes, { tools: await ctx.tools(), source, ...dotLimits(ctx.config) });
      const failing = result.diagnostics.filter(failsReply);
      const valid = failing.length === 0;
      if (!valid) ctx.exitCode = 1;

      if (opts.json) {
        printJson(ctx.io, {
          id: result.parsed?.id ?? null,
          updateLog: result.parsed?.updateLog ?? '',
          plan: result.graph ? planJson(result.graph) : null,
          dot: result.parsed?.dot ?? null,
          valid,
          diagnostics: result.diagnostics,
        });
        for (const d of failing) ctx.io.err(formatDiagnostic(d, source));
        return;
      }
      for (const d of result.diagnostics) ctx.io.err(formatDiagnostic(d, source));
      const deferred = result.diagnostics.filter((d) => d.severity === 'error' && !failsReply(d));
      if (deferred.length > 0) {
        const codes = [...new Set(deferred.map((d) => d.code))].join(', ');
        ctx.io.err(`${source}: note: errors ${codes} depend on where the reply is applied; parse-reply does not fail on them, applying the reply does`);
      }
      if (!valid) {
        ctx.io.err(`${source}: the reply cannot be used (${plural(failing.length, 'error')})`);
        return;
      }
      const { parsed, graph } = result;
      if (!parsed || !graph) return; // not reached: a reply that cannot be read has errors
      const firstLine = parsed.updateLog.split('\n')[0] ?? '';
      const warnings = result.diagnostics.filter((d) => d.severity === 'warning').length;
      ctx.io.out(
        [
          `${source}: ${parsed.id !== null ? `plan ${parsed.id}` : 'a new plan (no *id)'}`,
          `update log: ${firstLine === '' ? '(none)' : firstLine}${parsed.updateLog.includes('\n') ? ' ...' : ''}`,
          `${plural(graph.nodes.length, 'node')}, ${plural(graph.edges.length, 'edge')}; ${plural(deferred.length, 'error')} checked when applied, ${plural(warnings, 'warning')}`,
        ].join('\n'),
      );
    });
}

interface CheckResult {
  parsed?: ParsedReply;
  /** The plan with canonical statuses; absent when the reply or its DOT could not be read. */
  graph?: PlanGraph;
  /** Every finding, lines counted in the reply. */
  diagnostics: Diagnostic[];
}

/** The codec, the DOT reader and the validator, in turn; the first that cannot go on ends the check. */
function check(reply: string, maxReplyBytes: number, options: ValidateOptions): CheckResult {
  let parsed: ParsedReply;
  try {
    parsed = parseReply(reply, { maxBytes: maxReplyBytes });
  } catch (error) {
    if (error instanceof ValidationError) return { diagnostics: error.diagnostics };
    throw error;
  }
  const inReply = (d: Diagnostic) => placeInReply(d, reply, parsed);
  let read: PlanGraph;
  try {
    read = readDot(parsed.dot, options);
  } catch (error) {
    if (error instanceof ValidationError) return { parsed, diagnostics: error.diagnostics.map(inReply) };
    throw error;
  }
  // allowAgent: false, as the apply path validates (NODE_TYPE_NOT_SUPPORTED is one of the APPLY_TIME_CODES).
  const result = validateGraph(read, { ...options, allowAgent: false });
  return { parsed, graph: result.graph ?? read, diagnostics: result.diagnostics.map(inReply) };
}

/** `{"nodes":[{"id","type","status",...attributes}],"edges":[{"from","to","when"?}]}` of the validator's graph (statuses in canonical English). */
function planJson(graph: PlanGraph) {
  return {
    nodes: graph.nodes.map((node) => {
      const { type, status, ...rest } = node.attributes;
      const out: Record<string, string | undefined> = { id: node.id, type, status };
      for (const [key, value] of Object.entries(rest)) if (key !== 'id') out[key] = value;
      return out;
    }),
    edges: graph.edges.map((edge) => ({ from: edge.from, to: edge.to, ...(edge.attributes['when'] !== undefined ? { when: edge.attributes['when'] } : {}) })),
  };
}
