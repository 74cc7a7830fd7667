import { coerceError, ToolError } from '../errors/errors.js';
import type { Tool, ToolCatalogue, ToolContext } from '../tools/types.js';
import { describeIssues } from '../tools/describe-issues.js';
import { valueToText } from '../tools/json-path.js';
import type { AttemptAbort } from './attempt-abort.js';
import { resolveToolInput, resolveValue, type ReferenceScope } from './resolve-input.js';

/** The node as the worker holds it (from its stored row). */
export interface ExecutableNode {
  id: string;
  type: 'function' | 'multiFunction';
  attributes: Record<string, string>;
}

export interface ExecuteContext {
  planId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Aborts on plan cancellation, a lost lease or worker shutdown. */
  abort: AttemptAbort;
  log: (message: string) => void;
  params: ReferenceScope['params'];
  nodes: ReferenceScope['nodes'];
  /** Abort the attempt after this long (from retryPolicy). */
  timeoutMs?: number;
  /**
   * Told the input the node runs with, references resolved, before its tools run — as text (a
   * multiFunction node's: its calls as JSON, each with its resolved `toolInput`).
   */
  onInput?: (input: string) => void;
}

/**
 * Runs one attempt of a function or multiFunction node: resolves references in its input, validates
 * the input against the tool's schema, runs the tool (or the tools, concurrently) under an abort that
 * also fires on timeout, and returns the output as stored text (strings as they are, other values as
 * JSON). Every failure is a ToolError whose `retryable` says whether another attempt may help; when
 * `ctx.abort` aborted the attempt, the error's `cause` is its reason.
 */
export async function executeNode(node: ExecutableNode, ctx: ExecuteContext, tools: ToolCatalogue): Promise<{ output: string }> {
  // With a timeout, the tools get an abort of their own that the timer or the attempt's abort fires;
  // without one, the attempt's abort itself.
  const timeoutMs = ctx.timeoutMs;
  const timed = timeoutMs !== undefined ? ctx.abort.child() : undefined;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  if (timed && timeoutMs !== undefined) {
    timer = setTimeout(() => {
      timedOut = true;
      timed.abort.abort(new ToolError(`timed out after ${formatSeconds(timeoutMs)}`));
    }, timeoutMs);
  }
  const abort = timed?.abort ?? ctx.abort;
  try {
    const scope: ReferenceScope = { params: ctx.params, nodes: ctx.nodes };
    const result = node.type === 'function' ? await runFunction(node, ctx, tools, scope, abort) : await runMulti(node, ctx, tools, scope, abort);
    return { output: valueToText(result) };
  } catch (error) {
    if (timedOut) {
      throw new ToolError(`node "${node.id}" timed out after ${formatSeconds(ctx.timeoutMs ?? 0)}`, { cause: error });
    }
    if (ctx.abort.aborted) {
      const reason = ctx.abort.reason instanceof Error ? ctx.abort.reason.message : String(ctx.abort.reason);
      throw new ToolError(`node "${node.id}" was aborted: ${reason}`, { cause: ctx.abort.reason });
    }
    throw toToolError(error);
  } finally {
    clearTimeout(timer);
    timed?.stop();
  }
}

async function runFunction(node: ExecutableNode, ctx: ExecuteContext, tools: ToolCatalogue, scope: ReferenceScope, abort: AttemptAbort): Promise<unknown> {
  const code = node.attributes.toolCode;
  if (!code) throw new ToolError(`node "${node.id}" has no toolCode`, { retryable: false });
  const input = inNode(node, () => resolveToolInput(node.attributes.toolInput, scope));
  ctx.onInput?.(valueToText(input));
  return runTool(node, findTool(node, tools, code), input, ctx, abort, '');
}

async function runMulti(node: ExecutableNode, ctx: ExecuteContext, tools: ToolCatalogue, scope: ReferenceScope, abort: AttemptAbort): Promise<unknown[]> {
  const calls = parseToolCalls(node);
  // One failure aborts the others: the node fails as a whole.
  const group = abort.child();
  try {
    const prepared = calls.map((call, index) => {
      const where = `toolCalls[${index}] (${call.toolCode})`;
      const input = inNode(node, () => resolveValue(call.toolInput, scope), where);
      return { tool: findTool(node, tools, call.toolCode, where), input, where };
    });
    ctx.onInput?.(JSON.stringify(calls.map((call, index) => ({ toolCode: call.toolCode, toolInput: prepared[index]!.input }))));
    return await Promise.all(
      prepared.map(({ tool, input, where }) =>
        runTool(node, tool, input, ctx, group.abort, where).catch((error: unknown) => {
          group.abort.abort(error);
          throw error;
        }),
      ),
    );
  } finally {
    group.stop();
  }
}

function parseToolCalls(node: ExecutableNode): { toolCode: string; toolInput: unknown }[] {
  const text = node.attributes.toolCalls;
  let calls: unknown;
  try {
    calls = JSON.parse(text ?? '');
  } catch {
    throw new ToolError(`node "${node.id}": toolCalls is not JSON (expected [{"toolCode": ..., "toolInput": ...}, ...])`, {
      retryable: false,
    });
  }
  if (!Array.isArray(calls)) throw new ToolError(`node "${node.id}": toolCalls must be a JSON array`, { retryable: false });
  return calls.map((call: unknown, index) => {
    const c = call as { toolCode?: unknown; toolInput?: unknown } | null;
    if (!c || typeof c !== 'object' || typeof c.toolCode !== 'string') {
      throw new ToolError(`node "${node.id}": toolCalls[${index}] needs a "toolCode" string`, { retryable: false });
    }
    return { toolCode: c.toolCode, toolInput: c.toolInput };
  });
}

function findTool(node: ExecutableNode, tools: ToolCatalogue, code: string, where = ''): Tool {
  const tool = tools.get(code);
  if (!tool) throw new ToolError(`node "${node.id}"${where ? ` ${where}` : ''}: unknown tool "${code}"`, { retryable: false });
  return tool;
}

/** Runs a resolution step, naming the node (and call) in its error. */
function inNode<T>(node: ExecutableNode, step: () => T, where = ''): T {
  try {
    return step();
  } catch (error) {
    const e = toToolError(error);
    throw new ToolError(`node "${node.id}"${where ? ` ${where}` : ''}: ${e.message}`, { retryable: e.retryable, cause: error });
  }
}

async function runTool(node: ExecutableNode, tool: Tool, input: unknown, ctx: ExecuteContext, abort: AttemptAbort, where: string): Promise<unknown> {
  let value = input;
  if (tool.inputSchema) {
    const parsed = tool.inputSchema.safeParse(input);
    if (!parsed.success) {
      throw new ToolError(`node "${node.id}"${where ? ` ${where}` : ''}: input does not fit tool "${tool.code}": ${describeIssues(parsed.error)}`, {
        retryable: false,
        cause: parsed.error,
      });
    }
    if ('data' in parsed) value = parsed.data;
  }
  // The tool's signal is made only if the tool reads it (attempt-abort.ts).
  const toolCtx: ToolContext = {
    planId: ctx.planId,
    nodeId: node.id,
    attempt: ctx.attempt,
    get signal() {
      return abort.signal;
    },
    log: ctx.log,
  };
  // A tool that ignores its signal must not hold the attempt: the abort wins the race.
  return new Promise((resolve, reject) => {
    const aborted = (reason: unknown): Error => (reason instanceof Error ? reason : new Error(String(reason)));
    if (abort.aborted) return reject(aborted(abort.reason));
    const stop = abort.onAbort((reason) => reject(aborted(reason)));
    Promise.resolve()
      .then(() => tool.run(value, toolCtx))
      .then(resolve, reject)
      .finally(stop);
  });
}

/** Any thrown value as a ToolError; `retryable: false` / `nonRetryable: true` on it are honoured. */
export function toToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  const e = coerceError(error) as Error & { retryable?: unknown; nonRetryable?: unknown };
  const retryable = !(e.retryable === false || e.nonRetryable === true);
  return new ToolError(e.message || e.name, { retryable, cause: error });
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(ms < 1000 ? 3 : 1).replace(/0+$/, '')}s`;
}
