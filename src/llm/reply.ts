import { InvalidInputError } from '../errors/errors.js';
import { ValidationError, type Diagnostic } from '../model/diagnostics.js';
import type { DiagnosticCode } from '../validate/codes.js';
import { findPlanEnd, planStart, type PlanStart } from './reply-scan.js';

/**
 * The codec of an LLM's reply in reflection mode (SPEC §6, seed 004 §四): an update log between
 * `@epupdatelog@` markers, then the plan between `@EP@` markers as `*id=<plan id>` (left out for a
 * new plan) and `*graph=digraph G { ... }`.
 *
 * Lenient about what surrounds the blocks — prose, Markdown code fences around a block, the whole
 * reply or the digraph, CRLF, the digraph on the line after `*graph=`, no `*id`, no update log — and
 * strict about the plan: one `@EP@` block, closed, holding a digraph (what is inside the digraph is
 * for the DOT reader and the validator). A marker opens a block only at the start of a line (or
 * right after a closing marker), so prose that mentions "@EP@" is not taken for a plan; the plan
 * ends at the first `@EP@` outside DOT strings and comments, so a label may hold "@EP@".
 */
export interface ParsedReply {
  /** The `*id` line's value; null for a new plan (no `*id`, or an empty one). */
  id: string | null;
  /** The update log's Markdown (the first @epupdatelog@ block), trimmed, with `\n` line ends; "" when the reply has none. */
  updateLog: string;
  /** The DOT text as written in the reply (from its first character to the digraph's end), with one final `\n`. */
  dot: string;
  /** The 1-based line of the reply where `dot` starts: DOT line L is reply line L + dotLine - 1. */
  dotLine: number;
}

export interface ReplyParts {
  id?: string | null;
  updateLog: string;
  dot: string;
}

export const LOG_MARKER = '@epupdatelog@';
export const PLAN_MARKER = '@EP@';

/** The default of the setting `reflection.maxReplyBytes`: larger replies are refused unread. */
export const DEFAULT_MAX_REPLY_BYTES = 256 * 1024;

export interface ParseReplyOptions {
  /** Largest reply read, in UTF-8 bytes (the setting `reflection.maxReplyBytes`). Default: DEFAULT_MAX_REPLY_BYTES. */
  maxBytes?: number;
}

/**
 * Validator codes whose verdict depends on where the reply is applied, not on the plan's own shape:
 * which tools the applying process has registered (TOOL_UNKNOWN), which node types its engine runs
 * (NODE_TYPE_NOT_SUPPORTED), and a question left empty (QUESTION_EMPTY: seed 004's own format
 * example writes `question=""` on a waiting node as a placeholder; the apply path refuses it).
 * Checking a reply on its own (`dotplan parse-reply`) reports these without failing; every other
 * error — reading the DOT, structure, cycles, statuses, attributes, references, edges, `when` — fails it.
 */
export const APPLY_TIME_CODES: readonly DiagnosticCode[] = ['TOOL_UNKNOWN', 'NODE_TYPE_NOT_SUPPORTED', 'QUESTION_EMPTY'];

/** True for a diagnostic that makes a reply unusable wherever it is applied. */
export function failsReply(d: Diagnostic): boolean {
  return d.severity === 'error' && !(APPLY_TIME_CODES as readonly string[]).includes(d.code);
}

// No "..." in messages: formatDiagnostic turns ".." into ".".
const PLAN_FORMAT = 'a line @EP@, then *id=<plan id> (left out for a new plan), then *graph=digraph G { <nodes and edges> }, then a line @EP@';
const OPENERS = /@epupdatelog@|@ep@/gi;
const ID_HEADER = /\*[ \t]*id[ \t]*[=:][ \t]*/iy;
const GRAPH_HEADER = /\*[ \t]*graph[ \t]*[=:][ \t]*/iy;
const ID_END = /\*[ \t]*graph[ \t]*[=:]|@ep@/i;
const FENCE_OPEN = /[ \t]*(?:```|~~~)/y;
const TRAILING_FENCE = /\n[ \t]*(?:```|~~~)[ \t]*$/;

/**
 * Reads a reply; throws ValidationError with one REPLY_* diagnostic (line and fix given) when it holds no usable plan,
 * or REPLY_TOO_LARGE, before reading anything, when it is over `maxBytes`. Time linear in the reply's length.
 */
export function parseReply(text: string, options: ParseReplyOptions = {}): ParsedReply {
  const tooLarge = replyTooLarge(text, options.maxBytes ?? DEFAULT_MAX_REPLY_BYTES);
  if (tooLarge) fail(tooLarge);
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let updateLog: string | undefined;
  let plan: { id: string | null; dot: string; dotLine: number; line: number } | undefined;
  let afterCloser = -1;
  const lineEnd = lineEnds(src);
  OPENERS.lastIndex = 0;
  for (let match = OPENERS.exec(src); match; match = OPENERS.exec(src)) {
    const end = match.index + match[0].length;
    const isLog = match[0].toLowerCase() === LOG_MARKER;
    if (!atLineStart(src, match.index, afterCloser) && (isLog || !headerFollows(src, end, lineEnd))) continue;
    if (isLog) {
      const close = indexOfMarker(src, LOG_MARKER, end);
      if (close < 0) fail(logUnclosed(src, match.index));
      updateLog ??= src.slice(end, close).replace(/\r\n?/g, '\n').trim();
      afterCloser = OPENERS.lastIndex = close + LOG_MARKER.length;
      continue;
    }
    if (plan) fail(twoPlans(src, match.index, plan.line));
    const { end: blockEnd, ...read } = readPlan(src, match.index, end);
    plan = { ...read, line: lineOf(src, match.index) };
    afterCloser = OPENERS.lastIndex = blockEnd;
  }
  if (!plan) return fail(noPlan(src));
  return { id: plan.id, updateLog: updateLog ?? '', dot: plan.dot, dotLine: plan.dotLine };
}

/** REPLY_TOO_LARGE when the reply is over `maxBytes` UTF-8 bytes (for a caller that checks before doing anything else with it). */
export function replyTooLarge(text: string, maxBytes: number): Diagnostic | undefined {
  if (text.length * 3 <= maxBytes) return undefined; // fits even at three bytes per UTF-16 unit
  const size = Buffer.byteLength(text, 'utf8');
  if (size <= maxBytes) return undefined;
  return {
    code: 'REPLY_TOO_LARGE',
    severity: 'error',
    message: `the reply is ${kib(size)} (${size.toLocaleString('en')} bytes), more than the limit of ${kib(maxBytes)}; it was not read`,
    fix: 'answer with the plan only, without repeating node outputs or long texts (the engine keeps them); an operator may raise the setting reflection.maxReplyBytes (env DOTPLAN_MAX_REPLY_BYTES)',
  };
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KiB`;
}

/** The reply format, for prompts and tests: `parseReply(writeReply(x))` gives back `x` (a trimmed log without CR, a dot without leading space ending in one `\n`). */
export function writeReply(parts: ReplyParts): string {
  const id = parts.id ?? null;
  if (parts.updateLog.toLowerCase().includes(LOG_MARKER))
    throw new InvalidInputError(`the update log holds the marker ${LOG_MARKER}, which would end it early`);
  if (id !== null && (id !== id.trim() || id === '' || ID_END.test(id) || /[\r\n]/.test(id))) {
    throw new InvalidInputError(
      `plan id ${JSON.stringify(id)} cannot be written on an *id line (it must be one line without surrounding spaces, *graph= or @EP@)`,
    );
  }
  const lines = [LOG_MARKER, parts.updateLog, LOG_MARKER, PLAN_MARKER, ...(id !== null ? [`*id=${id}`] : []), `*graph=${parts.dot.trim()}`, PLAN_MARKER];
  return `${lines.join('\n')}\n`;
}

/**
 * A diagnostic of the reply's DOT text placed in the reply: its line moved by `dotLine - 1`, on the
 * DOT's first line (which starts after `*graph=`) its column moved too, and the DOT reader's "at line
 * L, column C" in the message changed to match.
 */
export function placeInReply(d: Diagnostic, reply: string, parsed: ParsedReply): Diagnostic {
  if (d.line === undefined) return d;
  const placed: Diagnostic = { ...d, line: d.line + parsed.dotLine - 1 };
  if (d.line === 1 && d.column !== undefined) {
    const firstLine = (text: string, index: number) => (text.split('\n')[index] ?? '').replace(/\r$/, '');
    const replyLine = firstLine(reply.startsWith('\uFEFF') ? reply.slice(1) : reply, parsed.dotLine - 1);
    placed.column = d.column + Math.max(0, replyLine.length - firstLine(parsed.dot, 0).length);
  }
  if (d.code.startsWith('DOT_')) {
    const was = d.column !== undefined ? `line ${d.line}, column ${d.column}` : `line ${d.line}`;
    const now = placed.column !== undefined ? `line ${placed.line}, column ${placed.column}` : `line ${placed.line}`;
    placed.message = d.message.replace(was, now);
  }
  return placed;
}

/** The plan block whose opening marker spans `[at, end)`: its header lines, the DOT text, and where the block ends. */
function readPlan(src: string, at: number, end: number): { id: string | null; dot: string; dotLine: number; end: number } {
  let id: string | null = null;
  let pos = end;
  for (;;) {
    pos = skipSpace(src, pos);
    const afterFence = fenceLine(src, pos);
    if (afterFence !== undefined) {
      pos = afterFence;
      continue;
    }
    const idStart = sticky(ID_HEADER, src, pos);
    if (idStart !== undefined) {
      const lineEnd = endOfLine(src, idStart);
      const value = src.slice(idStart, lineEnd);
      const cut = ID_END.exec(value);
      const raw = cut ? value.slice(0, cut.index) : value;
      id = raw.trim() === '' ? null : raw.trim();
      pos = idStart + raw.length;
      continue;
    }
    const graphStart = sticky(GRAPH_HEADER, src, pos);
    if (graphStart !== undefined) {
      pos = skipSpace(src, graphStart);
      const fenceEnd = fenceLine(src, pos);
      if (fenceEnd !== undefined) pos = skipSpace(src, fenceEnd);
    }
    break;
  }
  const found = findPlanEnd(src, pos, PLAN_MARKER);
  // A string or comment left open swallows the closing marker; cut at the next @EP@ anyway, so the DOT reader names the open string.
  const closer = found.closer >= 0 ? found.closer : indexOfMarker(src, PLAN_MARKER, pos);
  if (closer < 0) fail(unclosed(src, at));
  let body = src.slice(pos, closer).trimEnd();
  if (TRAILING_FENCE.test(body)) body = body.replace(TRAILING_FENCE, '').trimEnd();
  const start = planStart(body);
  if (start.kind !== 'digraph') fail(notDigraph(src, at, pos, start));
  return { id, dot: `${body}\n`, dotLine: lineOf(src, pos), end: closer + PLAN_MARKER.length };
}

/**
 * A marker opens a block when only spaces stand before it on its line or between it and the previous
 * block's closing marker; an @EP@ inside a line of text opens one only when `*id=` or `*graph=` follows.
 */
function atLineStart(src: string, index: number, afterCloser: number): boolean {
  let i = index - 1;
  while (i >= 0 && (src[i] === ' ' || src[i] === '\t')) i--;
  return i < 0 || src[i] === '\n' || src[i] === '\r' || i + 1 === afterCloser;
}

function headerFollows(src: string, end: number, lineEnd: (pos: number) => number): boolean {
  let pos = skipSpace(src, end);
  pos = fenceLine(src, pos, lineEnd) ?? pos;
  pos = skipSpace(src, pos);
  return sticky(ID_HEADER, src, pos) !== undefined || sticky(GRAPH_HEADER, src, pos) !== undefined;
}

const MARKER_SEARCH = new Map<string, RegExp>();

/**
 * The next `marker` at or after `from`, ignoring ASCII case. A search from `from` (linear overall, where lower-casing
 * the whole reply per marker was quadratic) that leaves offsets alone: lower-casing may change the length of a text
 * ("İ" becomes two code units), which misplaced every marker after it.
 */
function indexOfMarker(src: string, marker: string, from: number): number {
  let search = MARKER_SEARCH.get(marker);
  if (!search) MARKER_SEARCH.set(marker, (search = new RegExp(marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi')));
  search.lastIndex = from;
  return search.exec(src)?.index ?? -1;
}

/** Past a code fence line (```dot, ~~~) that starts at `pos`, with its line break; undefined when none starts there. */
function fenceLine(src: string, pos: number, lineEnd: (pos: number) => number = (p) => endOfLine(src, p)): number | undefined {
  if (sticky(FENCE_OPEN, src, pos) === undefined) return undefined;
  return Math.min(src.length, lineEnd(pos) + 1);
}

/**
 * `endOfLine` for positions met in increasing order, each line searched once: a line holding many markers (each
 * followed by a fence) costs its length once, not once per marker.
 */
function lineEnds(src: string): (pos: number) => number {
  let from = -1;
  let end = -1;
  return (pos) => {
    if (pos < from || pos > end) {
      from = pos;
      end = endOfLine(src, pos);
    }
    return end;
  };
}

function sticky(pattern: RegExp, src: string, pos: number): number | undefined {
  pattern.lastIndex = pos;
  const match = pattern.exec(src);
  return match ? pos + match[0].length : undefined;
}

function skipSpace(src: string, pos: number): number {
  while (pos < src.length && /\s/.test(src[pos]!)) pos++;
  return pos;
}

function endOfLine(src: string, pos: number): number {
  const end = src.indexOf('\n', pos);
  return end < 0 ? src.length : end;
}

function lineOf(src: string, offset: number): number {
  let line = 1;
  for (let i = src.indexOf('\n'); i >= 0 && i < offset; i = src.indexOf('\n', i + 1)) line++;
  return line;
}

function columnOf(src: string, offset: number): number {
  return offset - src.lastIndexOf('\n', offset - 1);
}

function fail(diagnostic: Diagnostic): never {
  throw new ValidationError([diagnostic]);
}

function noPlan(src: string): Diagnostic {
  const inProse = indexOfMarker(src, PLAN_MARKER, 0);
  if (inProse >= 0) {
    const line = lineOf(src, inProse);
    return {
      code: 'REPLY_NO_PLAN',
      severity: 'error',
      message: `the reply has no @EP@ block: the @EP@ at line ${line} is inside a line of text, not at the start of a block`,
      line,
      fix: `put each @EP@ marker at the start of its own line: ${PLAN_FORMAT}`,
    };
  }
  return {
    code: 'REPLY_NO_PLAN',
    severity: 'error',
    message: 'the reply has no plan: no @EP@ marker was found',
    fix: `wrap the plan in @EP@ markers: ${PLAN_FORMAT}`,
  };
}

function unclosed(src: string, at: number): Diagnostic {
  const line = lineOf(src, at);
  return {
    code: 'REPLY_UNCLOSED',
    severity: 'error',
    message: `the @EP@ block opened at line ${line} is never closed`,
    line,
    fix: 'end the plan with a line @EP@ after the closing } of the digraph',
  };
}

function twoPlans(src: string, at: number, firstLine: number): Diagnostic {
  const line = lineOf(src, at);
  return {
    code: 'REPLY_TWO_PLANS',
    severity: 'error',
    message: `a second @EP@ block starts at line ${line} (the first one starts at line ${firstLine}); a reply holds exactly one plan`,
    line,
    fix: 'write one @EP@ block with the whole plan in it',
  };
}

function logUnclosed(src: string, at: number): Diagnostic {
  const line = lineOf(src, at);
  return {
    code: 'REPLY_LOG_UNCLOSED',
    severity: 'error',
    message: `the update log opened with @epupdatelog@ at line ${line} is never closed`,
    line,
    fix: 'close the update log with a line @epupdatelog@ before the @EP@ block',
  };
}

function notDigraph(src: string, at: number, bodyStart: number, start: PlanStart): Diagnostic {
  const offset = start.kind === 'empty' ? at : bodyStart + start.offset;
  const line = lineOf(src, offset);
  const what = {
    empty: `the @EP@ block at line ${line} holds no plan`,
    undirected: `the plan at line ${line} is an undirected graph ("${start.word}"), not a digraph`,
    json: `the plan at line ${line} is JSON, not a Graphviz digraph`,
    other: `the plan at line ${line} starts with "${start.word}", not with digraph`,
    digraph: '',
  }[start.kind];
  return {
    code: 'REPLY_NOT_DIGRAPH',
    severity: 'error',
    message: what,
    line,
    column: columnOf(src, offset),
    fix:
      start.kind === 'undirected'
        ? 'write the plan as a directed graph: *graph=digraph G { <nodes and edges> } with edges a -> b'
        : 'write the plan in Graphviz DOT after *graph=, e.g. *graph=digraph G { 1 [label="step", type="function", status="ready", toolCode="echo"]; }',
  };
}
