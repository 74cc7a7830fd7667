import { parse, type ClusterStatementASTNode, type DotASTNode, type GraphASTNode } from 'ts-graphviz/ast';
import type { PlanGraph } from '../model/types.js';
import { plainStatements } from './plain-statements.js';
import { graphWalker, type SliceOriginal } from './walk.js';

/**
 * Reading a large DOT text in pieces, so that the parser's syntax tree of the whole plan never exists
 * at once (for 10,000 nodes it held ~150 MB; the plan read from it ~20). The graph's body is cut
 * between top-level statements (`splitStatements`), each piece is parsed on its own — wrapped in a
 * `digraph{ }` padded so that its lines, columns and offsets come out as in the whole text — and fed
 * to one walker in order, so defaults, clusters and strict merging work as in one parse.
 *
 * Only an optimisation: `readPieces` gives undefined where the text is not a plain single digraph or
 * a piece does not parse, and readDot then parses the whole text as before (whose errors and
 * diagnostics are the ones users see). A property test holds the two readings equal.
 */

/** Where a piece of the body starts and ends (offsets in the text handed to the parser). */
export interface Piece {
  start: number;
  end: number;
}

export interface SplitGraph {
  /** Offset of the graph's `{`. */
  open: number;
  /** Offset of its closing `}`. */
  close: number;
  /** The body from `open + 1` to `close`, cut between top-level statements. */
  pieces: Piece[];
}

type Previous = 'none' | 'id' | 'subgraph' | 'subgraph-id' | 'close' | 'other';

const ID_START = /[$A-Za-z_\u0080-\uffff]/;
const WORD = /[$A-Za-z0-9_.\u0080-\uffff]/;
const DIGIT = /[0-9]/;

/**
 * Cuts a DOT text's one graph body into pieces of about `perPiece` top-level statements. A statement
 * ends at a `;`, or where, outside brackets and nested braces, an id, `]` or `}` is followed by an id
 * or a `{` (not after `subgraph` or `subgraph name`). Undefined when the text is not one graph
 * closed by its `}` (followed by nothing but white space and comments): the whole text is parsed then.
 */
export function splitStatements(text: string, perPiece: number): SplitGraph | undefined {
  let depth = 0;
  let bracket = false;
  let open = -1;
  let previous: Previous = 'none';
  let pieceStart = 0;
  let inPiece = 0;
  const pieces: Piece[] = [];
  // A new statement starts at `at`: cut there when the piece is full.
  const statement = (at: number): void => {
    if (++inPiece <= perPiece) return;
    pieces.push({ start: pieceStart, end: at });
    pieceStart = at;
    inPiece = 1;
  };
  for (let i = significantAfter(text, 0); i < text.length; i = significantAfter(text, i + 1)) {
    if (i < 0) return undefined; // an unclosed comment
    const c = text[i]!;
    if (depth === 0) {
      if (open >= 0) return undefined; // something after the graph: a second graph, or an error
      if (c === '{') {
        open = i;
        depth = 1;
        pieceStart = i + 1;
        continue;
      }
      if (c === '"') {
        const end = endOfString(text, i);
        if (end < 0) return undefined;
        i = end;
      } else if (c === '<') {
        const end = endOfHtml(text, i);
        if (end < 0) return undefined;
        i = end;
      }
      continue; // the header: strict, digraph, its name
    }
    const top = depth === 1 && !bracket;
    const startsStatement = previous === 'id' || previous === 'close';
    if (
      c === '"' ||
      c === '<' ||
      ID_START.test(c) ||
      DIGIT.test(c) ||
      (c === '.' && DIGIT.test(text[i + 1] ?? '')) ||
      (c === '-' && /[0-9.]/.test(text[i + 1] ?? ''))
    ) {
      const begin = i;
      const end = c === '"' ? endOfString(text, i) : c === '<' ? endOfHtml(text, i) : endOfWord(text, i);
      if (end < 0) return undefined;
      i = end;
      if (!top) continue;
      // `subgraph` opens a subgraph only before `{` or `name {`; elsewhere the parser takes it for a node's id.
      const named: boolean = previous === 'subgraph' && text[significantAfter(text, end + 1)] === '{';
      // Never between two tokens that touch (`0_`, `"a"b`): the parser may read them as one.
      const apart = begin === 0 || /[\s;\]}/]/.test(text[begin - 1]!);
      if (!named && apart && (startsStatement || previous === 'none' || previous === 'subgraph')) statement(begin);
      const word = text.slice(begin, end + 1);
      // The parser matches the keyword without a word boundary: `subgraphx {` is subgraph x.
      previous = named ? 'subgraph-id' : word.toLowerCase().startsWith('subgraph') ? 'subgraph' : 'id';
      continue;
    }
    if (bracket) {
      if (c === ']') {
        bracket = false;
        if (depth === 1) previous = 'close';
      }
      continue;
    }
    switch (c) {
      case '[':
        bracket = true;
        break;
      case '{':
        if (depth === 1 && (startsStatement || previous === 'none') && /[\s;\]}/]/.test(text[i - 1]!)) statement(i);
        depth++;
        if (depth === 2) previous = 'other';
        break;
      case '}':
        depth--;
        if (depth === 0) {
          pieces.push({ start: pieceStart, end: i });
          return onlyCommentsAfter(text, i + 1) ? { open, close: i, pieces } : undefined;
        }
        if (depth === 1) previous = 'close';
        break;
      case ';':
        if (depth === 1) previous = 'none';
        break;
      default:
        if (depth === 1) previous = 'other'; // -> -- = : , +
    }
  }
  return undefined;
}

/**
 * The graph read piece by piece (see above); undefined when the text is not one plain graph or a
 * piece does not parse — the caller parses the whole text then. The DOT element limit
 * (`maxASTNodes`) counts what the parser makes, including what it backtracks over: at most ~2.5 per
 * element it keeps (`a;b;c;…`; a test holds it under MAX_MADE_PER_KEPT). Pieces are given up, and
 * the whole text parsed, once the elements kept times that bound reach the limit, so the limit
 * refuses what it refused when every text was parsed whole.
 */
export function readPieces(text: string, sliceOriginal: SliceOriginal, options: { perPiece: number; maxASTNodes: number }): PlanGraph | undefined {
  const split = splitStatements(text, options.perPiece);
  if (!split) return undefined;
  const parseOptions = { maxASTNodes: options.maxASTNodes, maxInputSize: 0 };
  let header: GraphASTNode | undefined;
  try {
    header = graphOf(parse(`${text.slice(0, split.open + 1)}}`, parseOptions));
  } catch {
    return undefined;
  }
  if (!header || !header.directed) return undefined;
  const walker = graphWalker(header.strict);
  // Each piece is parsed as `digraph{<piece>}`: its first line is line 1, its first character column 9.
  const head = 'digraph{';
  let line = 1;
  let lineStart = 0;
  let counted = 0;
  let used = 0;
  for (const piece of split.pieces) {
    for (let i = text.indexOf('\n', counted); i >= 0 && i < piece.start; i = text.indexOf('\n', i + 1)) {
      line++;
      lineStart = i + 1;
    }
    counted = piece.start;
    // A piece of plain statements is read without the parser (plain-statements.ts), any other by it.
    let statements: readonly ClusterStatementASTNode[] | undefined = plainStatements(text, piece.start, piece.end, head);
    try {
      statements ??= graphOf(parse(`${head}${text.slice(piece.start, piece.end)}}`, parseOptions))?.children ?? [];
    } catch {
      return undefined;
    }
    used += MAX_MADE_PER_KEPT * statements.reduce((n, statement) => n + elements(statement), 0);
    if (used > options.maxASTNodes) return undefined;
    const shift = piece.start - head.length;
    walker.statements(statements, {
      slice: (from, to) => sliceOriginal(from + shift, to + shift),
      lines: line - 1,
      columns: piece.start - lineStart + 1 - (head.length + 1),
    });
  }
  return walker.finish(header.id, { slice: sliceOriginal, lines: 0, columns: 0 });
}

/** How many elements the parser may make per element of the tree it gives back (backtracking included). */
export const MAX_MADE_PER_KEPT = 3;

/** The elements of a syntax tree: the node, its id, key, value, edge targets and children. */
export function elements(node: unknown): number {
  const element = node as { id?: unknown; key?: unknown; value?: unknown; targets?: unknown[]; children?: unknown[] };
  let n = 1;
  for (const part of [element.id, element.key, element.value]) if (typeof part === 'object' && part !== null) n += elements(part);
  for (const part of element.targets ?? []) n += elements(part);
  for (const part of element.children ?? []) n += elements(part);
  return n;
}

function graphOf(ast: DotASTNode): GraphASTNode | undefined {
  const graphs = ast.children.filter((c): c is GraphASTNode => c.type === 'Graph');
  return graphs.length === 1 ? graphs[0] : undefined;
}

/** The offset of a quoted string's closing `"` (-1: none). */
function endOfString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** The offset of an HTML string's closing `>` (-1: none). */
function endOfHtml(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (text[i] === '<') depth++;
    else if (text[i] === '>' && --depth === 0) return i;
  }
  return -1;
}

/** The last offset of an id or numeral starting at `at`: the whole run of id and number characters. */
function endOfWord(text: string, at: number): number {
  let i = at;
  while (i + 1 < text.length && WORD.test(text[i + 1]!)) i++;
  return i;
}

/**
 * The offset of the first character from `from` on that is not white space (DOT's, as the parser has
 * it) or in a comment: the text's length when there is none, -1 in an unclosed block comment.
 */
function significantAfter(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
    if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      const end = text.indexOf('\n', i);
      if (end < 0) return text.length;
      i = end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return -1;
      i = end + 1;
    } else return i;
  }
  return text.length;
}

function onlyCommentsAfter(text: string, from: number): boolean {
  return significantAfter(text, from) === text.length;
}
