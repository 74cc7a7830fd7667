import { parse, type DotASTNode, type GraphASTNode } from 'ts-graphviz/ast';
import { ValidationError, type Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';
import { DOT_LIMITS, LIMIT_SETTINGS, MAX_DOT_NESTING } from './limits.js';
import { diagnoseParseError, undirected } from './parse-errors.js';
import { readPieces } from './pieces.js';
import { prepareDot } from './prepare.js';
import { walkGraph } from './walk.js';

export interface ReadDotOptions {
  /** A name for the input (file path, "template foo"), used in messages. */
  source?: string;
  /** Largest accepted input, in UTF-8 bytes. Default: DOT_LIMITS (limits.ts). */
  maxBytes?: number;
  /** Largest accepted number of DOT syntax elements. Default: DOT_LIMITS (limits.ts). */
  maxASTNodes?: number;
}

/**
 * Reads one plan from DOT text (compact or pretty form) with standard DOT semantics: defaults,
 * chains, `{a b}` groups, clusters, comments, quoted ids, `strict`. Throws ValidationError with
 * DOT_EMPTY, DOT_TOO_LARGE, DOT_TOO_DEEP, DOT_SYNTAX, DOT_MULTIPLE_GRAPHS or DOT_UNDIRECTED. Values
 * are decoded per the convention in `strings.ts`.
 */
export function readDot(text: string, options: ReadDotOptions = {}): PlanGraph {
  const fail = (diagnostic: Diagnostic): never => {
    throw new ValidationError([diagnostic], options.source);
  };
  const maxBytes = options.maxBytes ?? DOT_LIMITS.maxBytes;
  const maxASTNodes = options.maxASTNodes ?? DOT_LIMITS.maxASTNodes;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    fail({
      code: 'DOT_TOO_LARGE',
      severity: 'error',
      message: `the input is ${formatBytes(bytes)}, more than the limit of ${formatBytes(maxBytes)}`,
      fix: `split the plan into smaller plans, or raise the setting ${LIMIT_SETTINGS.bytes} if you trust the input`,
    });
  }
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const prepared = prepareDot(source);
  if (!prepared.hasContent) {
    fail({
      code: 'DOT_EMPTY',
      severity: 'error',
      message: 'the input holds no graph (it is empty or only comments)',
      fix: 'write a plan: digraph G { a [type="function", status="pending", toolCode="echo"]; }',
    });
  }
  if (prepared.tooDeep !== undefined) fail(tooDeep(source, prepared.tooDeep));
  const sliceOriginal = (from: number, to: number) => source.slice(prepared.originalOffset(from), prepared.originalOffset(to));
  if (prepared.text.length >= PIECES_FROM) {
    const graph = readPieces(prepared.text, sliceOriginal, { perPiece: STATEMENTS_PER_PIECE, maxASTNodes });
    if (graph) return graph;
  }
  let ast: DotASTNode;
  try {
    ast = parse(prepared.text, { maxASTNodes, maxInputSize: 0 });
  } catch (error) {
    return fail(prepared.unclosed ? unclosed(source, prepared.unclosed) : diagnoseParseError(error, prepared.text, maxASTNodes));
  }
  const graphs = ast.children.filter((c): c is GraphASTNode => c.type === 'Graph');
  const [graph, second] = graphs;
  if (!graph) return fail({ code: 'DOT_EMPTY', severity: 'error', message: 'the input holds no graph' });
  if (second) {
    const line = second.location?.start.line;
    fail({
      code: 'DOT_MULTIPLE_GRAPHS',
      severity: 'error',
      message: `a second graph starts${line !== undefined ? ` at line ${line}` : ''}; one input holds exactly one digraph`,
      ...(line !== undefined ? { line, column: second.location!.start.column } : {}),
      fix: 'keep one digraph per file (put the other plan in its own file)',
    });
  }
  if (!graph.directed) {
    const start = graph.location?.start;
    fail(undirected(start ? { line: start.line, column: start.column } : {}));
  }
  return walkGraph(graph, sliceOriginal);
}

/**
 * Texts from this size on are read in pieces (pieces.ts): the parser's tree of a whole 10,000-node plan held
 * ~150 MB, and pieces of plain statements are read without the parser (plain-statements.ts) — a 1,000-node plan
 * of 94 KB in 13–26 ms instead of 93–120 ms. Below it the parser reads the whole text in a few milliseconds.
 */
export const PIECES_FROM = 8 * 1024;
const STATEMENTS_PER_PIECE = 200;

const UNCLOSED = {
  string: ['a quoted string', 'add the closing "'],
  html: ['an HTML string <...>', 'add the closing >'],
  comment: ['a /* comment', 'add the closing */'],
} as const;

function unclosed(source: string, at: { kind: keyof typeof UNCLOSED; offset: number }): Diagnostic {
  const { line, column } = place(source, at.offset);
  const [what, fix] = UNCLOSED[at.kind];
  return { code: 'DOT_SYNTAX', severity: 'error', message: `${what} starting at line ${line}, column ${column} is never closed`, line, column, fix };
}

function tooDeep(source: string, offset: number): Diagnostic {
  const { line, column } = place(source, offset);
  return {
    code: 'DOT_TOO_DEEP',
    severity: 'error',
    message: `the "{" at line ${line}, column ${column} nests deeper than ${MAX_DOT_NESTING} levels (subgraphs or {...} groups inside one another)`,
    line,
    column,
    fix: `flatten the nesting: put subgraphs side by side instead of one inside another (at most ${MAX_DOT_NESTING} levels)`,
  };
}

/** 1-based line and column of an offset. */
function place(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  for (let i = source.indexOf('\n'); i >= 0 && i < offset; i = source.indexOf('\n', i + 1)) line++;
  return { line, column: offset - source.lastIndexOf('\n', offset - 1) };
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KiB`;
  return `${bytes} bytes`;
}
