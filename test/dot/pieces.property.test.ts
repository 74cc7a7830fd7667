import fc from 'fast-check';
import { parse } from 'ts-graphviz/ast';
import { describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import { elements, MAX_MADE_PER_KEPT, readPieces, splitStatements } from '../../src/dot/pieces.js';
import { prepareDot } from '../../src/dot/prepare.js';
import { PIECES_FROM } from '../../src/dot/read.js';
import { walkGraph } from '../../src/dot/walk.js';
import { quote } from '../../src/dot/strings.js';
import { ValidationError } from '../../src/model/diagnostics.js';
import { shapeText } from '../../src/bench/scenarios/validate-shapes.js';
import { anyText, planGraph } from './arbitraries.js';

/** The text read in pieces of `perPiece` statements, as readDot does for large texts (undefined: it fell back). */
function inPieces(text: string, perPiece: number, maxASTNodes = 5_000_000) {
  const prepared = prepareDot(text);
  return readPieces(prepared.text, (from, to) => text.slice(prepared.originalOffset(from), prepared.originalOffset(to)), { perPiece, maxASTNodes });
}

/**
 * Reads the text in pieces and whole, and holds them to one rule: what the whole reading refuses,
 * pieces never accept; what pieces read is what the whole reading reads. Says which case it was.
 */
function compareReadings(text: string, perPiece: number): 'refused' | 'read' | 'left to the whole reading' {
  const expected = whole(text);
  const pieces = inPieces(text, perPiece);
  if (expected.refused) {
    expect(pieces).toBeUndefined();
    return 'refused';
  }
  if (pieces === undefined) return 'left to the whole reading';
  expect(pieces).toEqual(expected.graph);
  return 'read';
}

/** The text read whole (these texts are below PIECES_FROM), or the error's codes. */
function whole(text: string) {
  expect(text.length).toBeLessThan(PIECES_FROM);
  try {
    return { graph: readDot(text) };
  } catch (error) {
    if (error instanceof ValidationError) return { refused: error.diagnostics.map((d) => d.code) };
    throw error;
  }
}

// DOT as people write it: ids of every kind, statements on one line or many, with and without `;`,
// comments between them, chains with groups and subgraphs, defaults, clusters, several attribute lists.
const plainId = fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_]{0,3}$/).filter((id) => !/^(node|edge|graph|digraph|subgraph|strict)$/i.test(id));
const id = fc.oneof(
  { weight: 4, arbitrary: plainId },
  fc.constantFrom('1', '-2', '.5', '3.25', '-0.5'),
  anyText.map((text) => quote(text)),
  fc.constantFrom('<<b>x</b>>', '<y>', '<>', '"two\nlines"', '"crlf\r\nin it"', '"a\\\nb"'),
);
const gap = fc.constantFrom(' ', '\n', '\n\n  ', '\t', ' /* c; } { */ ', ' // c } ;\n', '\n# c\n', '\r\n');
const separator = fc.oneof(
  gap,
  gap.map((g) => `;${g}`),
);
const attribute = fc.tuple(id, id).map(([key, value]) => `${key}=${value}`);
const attributeList = fc.tuple(fc.array(attribute, { maxLength: 3 }), fc.constantFrom(' ', ', ', ';', '\n')).map(([list, sep]) => `[${list.join(sep)}]`);

const { statements } = fc.letrec<{ statements: string; statement: string; target: string }>((tie) => ({
  statements: fc
    .tuple(fc.array(fc.tuple(tie('statement'), separator), { maxLength: 6 }), gap)
    .map(([list, end]) => list.map(([s, sep]) => s + (s.endsWith('}') ? sep.replace(/^;/, '') : sep)).join('') + end), // ts-graphviz takes no `;` after a subgraph
  statement: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(id, fc.option(attributeList, { nil: undefined })).map(([node, attrs]) => (attrs ? `${node} ${attrs}` : node)),
    fc
      .tuple(fc.array(tie('target'), { minLength: 2, maxLength: 3 }), fc.option(attributeList, { nil: undefined }))
      .map(([targets, attrs]) => targets.join(' -> ') + (attrs ? ` ${attrs}` : '')), // ts-graphviz takes no line break or comment around ->
    fc.tuple(fc.constantFrom('node', 'edge', 'graph', 'NODE', 'Edge'), attributeList).map(([kind, list]) => `${kind} ${list}`),
    attribute,
    fc
      .tuple(fc.constantFrom('subgraph cluster_a ', 'subgraph cluster_b', 'Subgraph s ', 'subgraph ', ''), tie('statements'))
      .map(([head, body]) => `${head}{${body}}`),
  ),
  target: fc.oneof(
    { depthSize: 'small' },
    id,
    plainId.map((node) => `${node}:p`),
    fc.array(id, { minLength: 1, maxLength: 3 }).map((ids) => `{${ids.join(' ')}}`),
  ),
}));

const headerGap = fc.constantFrom(' ', '\n', '\t', '\r\n');
const handWritten = fc
  .tuple(
    fc.constantFrom('', '// head\n', '/* a */ '),
    fc.constantFrom('digraph', 'strict digraph', 'DiGraph'),
    fc.option(
      fc.oneof(
        plainId,
        anyText.map((text) => quote(text)),
      ),
      { nil: undefined },
    ),
    headerGap,
    statements,
    gap,
  )
  .map(([before, kind, name, g, body, after]) => `${before}${kind}${name !== undefined ? ` ${name}` : ''}${g}{${body}}${after}`);

describe('reading a large DOT text in pieces', () => {
  it('gives the same plan graph as reading it whole, lines and columns included, or leaves it to the whole reading', () => {
    let read = 0;
    fc.assert(
      fc.property(handWritten, fc.integer({ min: 1, max: 3 }), (text, perPiece) => {
        const outcome = compareReadings(text, perPiece);
        // A plan the whole reading accepts is read in pieces too, not left to it.
        expect(outcome).not.toBe('left to the whole reading');
        if (outcome === 'read') read++;
      }),
      { numRuns: Number(process.env.RUNS ?? 1500) },
    );
    // The generator makes mostly valid plans: the pieces path was taken, not skipped.
    expect(read).toBeGreaterThan(500);
  });

  it('never accepts a broken text that the whole reading refuses', () => {
    const broken = fc
      .tuple(handWritten, fc.nat(), fc.constantFrom('{', '}', ';', '[', ']', '->', '"', '=', ',', 'subgraph', '<', '/*', '//', '#', 'digraph x {}'))
      .map(([text, at, insert]) => text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1)));
    let refused = 0;
    fc.assert(
      fc.property(broken, fc.integer({ min: 1, max: 3 }), (text, perPiece) => {
        if (compareReadings(text, perPiece) === 'refused') refused++;
      }),
      { numRuns: Number(process.env.RUNS ?? 1500) },
    );
    expect(refused).toBeGreaterThan(300);
  });

  it('reads what writeDot writes, in pieces of one statement', () => {
    fc.assert(
      fc.property(planGraph, (graph) => {
        const text = writeDot(graph);
        expect(inPieces(text, 1)).toEqual(readDot(text));
      }),
      { numRuns: 300 },
    );
  });

  it('cuts between statements only where the whole reading does: one piece per statement', () => {
    const text = 'digraph G {\n  a [x="}"] b\n  c -> {d e} -> f [y=1][z=2]\n  subgraph cluster_x { g h }\n  k = v; node [shape=box] {m n} p:port -> q\n}';
    const split = splitStatements(prepareDot(text).text, 1)!;
    expect(split.pieces.map((p) => text.slice(p.start, p.end).trim())).toEqual([
      'a [x="}"]',
      'b',
      'c -> {d e} -> f [y=1][z=2]',
      'subgraph cluster_x { g h }',
      'k = v;',
      'node [shape=box]',
      '{m n}',
      'p:port -> q',
    ]);
  });

  it('leaves a second graph, or anything after the graph, to the whole reading', () => {
    expect(splitStatements('digraph a { x } digraph b { y }', 1)).toBeUndefined();
    expect(splitStatements('digraph a { x } junk', 1)).toBeUndefined();
    expect(splitStatements('digraph a { x } // fine\n/* too */', 1)).toBeDefined();
  });

  it('reads the benchmark shapes of 2,000 nodes (above the size where readDot uses pieces) as one parse of the whole does', () => {
    for (const shape of ['chain5', 'fan-in', 'ladder', 'random'] as const) {
      const text = shapeText(shape, 2_000);
      expect(text.length).toBeGreaterThan(PIECES_FROM);
      const prepared = prepareDot(text);
      const ast = parse(prepared.text, { maxInputSize: 0, maxASTNodes: 10_000_000 });
      const graph = ast.children.find((c) => c.type === 'Graph')!;
      const expected = walkGraph(graph, (from, to) => text.slice(from, to));
      expect(expected.nodes).toHaveLength(2_000);
      expect(readDot(text)).toEqual(expected);
    }
  });
});

/** The elements the parser makes for a text (what its maxASTNodes counts), found by bisecting the limit. */
function madeBy(text: string): number {
  let low = 1;
  let high = 1_000_000;
  while (low < high) {
    const mid = (low + high) >> 1;
    try {
      parse(text, { maxASTNodes: mid, maxInputSize: 0 });
      high = mid;
    } catch {
      low = mid + 1;
    }
  }
  return low;
}

describe('the DOT element limit, with pieces', () => {
  it(`holds the parser's elements made under ${MAX_MADE_PER_KEPT}× the elements it keeps, on the densest statements`, () => {
    const dense = ['a;', 'a ', 'a\n', 'a[]', 'a[x=y]', 'a->b ', '{a b}->c ', 'x=y;', 'node[a=b]', '{}', 'subgraph s{a} ', 'a:p->b:q ', '"a";', '<a>;', '1;'];
    for (const statement of dense) {
      const text = `digraph{${statement.repeat(200)}}`;
      const kept = elements(parse(text, { maxASTNodes: 1_000_000, maxInputSize: 0 }));
      expect(madeBy(text), statement).toBeLessThanOrEqual(MAX_MADE_PER_KEPT * kept);
    }
  });

  it('refuses a large text over the limit as the whole reading did', () => {
    const text = shapeText('chain5', 2_000);
    const made = madeBy(text);
    expect(() => readDot(text, { maxASTNodes: made - 1 })).toThrow(/DOT elements/);
    expect(readDot(text, { maxASTNodes: made }).nodes).toHaveLength(2_000);
  });
});
