import fc from 'fast-check';
import { parse } from 'ts-graphviz/ast';
import { describe, expect, it } from 'vitest';
import { writeDot } from '../../src/dot/index.js';
import { splitStatements } from '../../src/dot/pieces.js';
import { plainStatements } from '../../src/dot/plain-statements.js';
import { prepareDot } from '../../src/dot/prepare.js';
import { isHtmlString, quote } from '../../src/dot/strings.js';
import type { Attributes } from '../../src/model/types.js';
import { shapeText, VALIDATE_SHAPES } from '../../src/bench/scenarios/validate-shapes.js';
import { anyText, planGraph } from './arbitraries.js';

const HEAD = 'digraph{';

/**
 * What the walker (walk.ts) and the element limit (pieces.ts) read of a syntax tree, with each
 * literal's raw text as the parser's copy of the piece spells it: the two readings must agree on it.
 */
function shape(node: unknown, copy: string): unknown {
  if (Array.isArray(node)) return node.map((n) => shape(n, copy));
  const n = node as { type: string; location: { start: unknown; end: { offset: number } }; [key: string]: unknown };
  const start = n.location.start;
  switch (n.type) {
    case 'Literal':
      return { quoted: n.quoted, raw: copy.slice((start as { offset: number }).offset, n.location.end.offset), start, ...(n.quoted ? {} : { value: n.value }) };
    case 'Node':
      return { type: n.type, start, id: shape(n.id, copy), children: shape(n.children, copy) };
    case 'Edge':
      return { type: n.type, targets: shape(n.targets, copy), children: shape(n.children, copy) };
    case 'NodeRef':
      return { type: n.type, start, id: shape(n.id, copy), port: n.port, compass: n.compass };
    case 'Attribute':
      return { type: n.type, key: shape(n.key, copy), value: shape(n.value, copy) };
    default:
      return { type: n.type };
  }
}

/** A body read both ways: 'plain' when read without the parser (and then equal to the parser's), else why not. */
function compare(body: string): 'plain' | 'left to the parser' | 'refused by both' {
  const copy = `${HEAD}${body}}`;
  const plain = plainStatements(body, 0, body.length, HEAD);
  let parsed: unknown[];
  try {
    const graph = parse(copy, { maxInputSize: 0 }).children.find((c) => c.type === 'Graph')!;
    parsed = graph.children;
  } catch {
    expect(plain).toBeUndefined();
    return 'refused by both';
  }
  if (plain === undefined) return 'left to the parser';
  expect(shape(plain, copy)).toEqual(shape(parsed, copy));
  return 'plain';
}

// Plain statements and everything next to them: ids that are keywords or touch, numerals, quoted strings
// with escapes and line breaks, line breaks and `;` in every place, comments, ports, groups, other separators.
const word = fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,4}$/);
const id = fc.oneof(
  { weight: 12, arbitrary: word },
  fc.constantFrom(
    '1',
    '-2',
    '.5',
    '3.',
    '3.25',
    '-0.5',
    '0x',
    '1.2.3',
    'node',
    'Edge',
    'GRAPH',
    'subgraph',
    'subgraphs',
    'Subgraphx',
    'nodes',
    'nodex',
    'strict',
    'digraph',
    'é',
    'a.b',
  ),
  { weight: 6, arbitrary: anyText.map((text) => quote(text)) },
  fc.constantFrom('"a\\\nb"', '"a\\\r\nb"', '"tab\tin"', '"a" + "b"', '<b>', '""', '"\\\\"', '"x"y'),
);
const blank = fc.constantFrom('', ' ', '  ', '\t');
const gap = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(' ', '\n', '\n  ', '\r\n', ';', '; ', ';\n') },
  fc.constantFrom('\n;', ' // c\n', ' /* c */ ', '\n# c\n', ''),
);
const attribute = fc
  .tuple(id, blank, blank, id, fc.constantFrom('', ',', ';', ' ,', ',\n', '\n', ' '))
  .map(([k, b1, b2, v, sep]) => `${k}${b1}=${b2}${v}${sep}`);
const list = fc.tuple(fc.array(attribute, { maxLength: 3 }), fc.constantFrom('', ' ', '\n')).map(([items, end]) => `[${items.join(' ')}${end}]`);
const target = fc.oneof({ weight: 12, arbitrary: id }, fc.constantFrom('a:p', '{a b}', 'subgraph {a}'));
const statement = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(id, blank, fc.option(list, { nil: undefined })).map(([node, b, attrs]) => (attrs ? `${node}${b}${attrs}` : node)) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.array(target, { minLength: 2, maxLength: 4 }),
        fc.oneof({ weight: 6, arbitrary: fc.constantFrom(' -> ', '->') }, fc.constantFrom(' ->\n', '\n-> ', ' -- ')),
        blank,
        fc.option(list, { nil: undefined }),
      )
      .map(([targets, arrow, b, attrs]) => targets.join(arrow) + (attrs ? `${b}${attrs}` : '')),
  },
  { weight: 2, arbitrary: fc.tuple(id, blank, blank, id).map(([k, b1, b2, v]) => `${k}${b1}=${b2}${v}`) },
  fc.constantFrom('node [shape=box]', 'edge[x=1]', 'graph [a=b]', 'subgraph cluster_a { x }', '{a b}', '[x=1]', '->', '=', ']', '}'),
);
const body = fc.tuple(fc.array(fc.tuple(statement, gap), { maxLength: 6 }), gap).map(([list, end]) => list.map(([s, g]) => s + g).join('') + end);

describe('plain statements read without the parser', () => {
  it("give the parser's syntax tree (lines, columns, offsets, raw literals) wherever they read a piece, and refuse what it refuses", () => {
    const outcomes = { plain: 0, 'left to the parser': 0, 'refused by both': 0 };
    fc.assert(
      fc.property(body, (text) => {
        outcomes[compare(text)]++;
      }),
      { numRuns: Number(process.env.RUNS ?? 4000) },
    );
    // Both ways are exercised: plain pieces are read, and the rest is left to the parser.
    expect(outcomes.plain).toBeGreaterThan(400);
    expect(outcomes['left to the parser']).toBeGreaterThan(400);
  });

  it('read every piece of the benchmark shapes and of what writeDot writes (the fast way is taken, not skipped)', () => {
    const pieces = (text: string) => {
      const prepared = prepareDot(text).text;
      const split = splitStatements(prepared, 200)!;
      return split.pieces.map((p) => plainStatements(prepared, p.start, p.end, HEAD));
    };
    for (const name of VALIDATE_SHAPES) {
      const read = pieces(shapeText(name, 2_000));
      expect(read.length).toBeGreaterThan(5);
      expect(read.every((statements) => statements !== undefined)).toBe(true);
    }
    // writeDot puts clusters in subgraphs and writes HTML labels as such, both of which the parser reads; the rest is plain.
    const noHtml = (attributes: Attributes): Attributes => Object.fromEntries(Object.entries(attributes).filter(([, value]) => !isHtmlString(value)));
    fc.assert(
      fc.property(planGraph, (graph) => {
        const flat = writeDot({
          ...graph,
          attributes: noHtml(graph.attributes),
          clusters: [],
          nodes: graph.nodes.map(({ cluster: _, ...node }) => ({ ...node, attributes: noHtml(node.attributes) })),
          edges: graph.edges.map((edge) => ({ ...edge, attributes: noHtml(edge.attributes) })),
        });
        expect(pieces(flat).every((statements) => statements !== undefined)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
