import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDot } from '../../src/dot/index.js';
import { ValidationError, type Diagnostic } from '../../src/model/diagnostics.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/dot');
const attrs = (text: string) => Object.fromEntries(readDot(text).nodes.map((n) => [n.id, n.attributes]));
const pairs = (text: string) => readDot(text).edges.map((e) => `${e.from}->${e.to}`);

function diagnosticOf(text: string, options?: Parameters<typeof readDot>[1]): Diagnostic {
  try {
    readDot(text, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const [diagnostic] = (error as ValidationError).diagnostics;
    return diagnostic!;
  }
  throw new Error('readDot accepted the input');
}

describe('readDot semantics', () => {
  it('applies node and edge defaults only to statements after them, scoped to subgraphs', () => {
    const text = `digraph {
      a
      node [shape=box, status=pending]
      b
      subgraph inner { node [shape=ellipse] c; edge [color=red] c -> d }
      e -> f
      node [shape=circle]
    }`;
    expect(attrs(text)).toEqual({
      a: {},
      b: { shape: 'box', status: 'pending' },
      c: { shape: 'ellipse', status: 'pending' },
      d: { shape: 'ellipse', status: 'pending' },
      e: { shape: 'box', status: 'pending' },
      f: { shape: 'box', status: 'pending' },
    });
    const graph = readDot(text);
    expect(graph.edges.map((e) => e.attributes)).toEqual([{ color: 'red' }, {}]);
  });

  it('gives a node first mentioned by an edge only the defaults, and merges later attributes', () => {
    expect(attrs('digraph { node [status=pending] a -> b; b [type=function]; b [toolCode=echo] }')).toEqual({
      a: { status: 'pending' },
      b: { status: 'pending', type: 'function', toolCode: 'echo' },
    });
  });

  it('splits chains and {groups} into pairs, with the statement attributes on each', () => {
    const graph = readDot('digraph { a -> b -> c [when=yes]; {x y} -> {z w} }');
    expect(graph.edges.map((e) => `${e.from}->${e.to}:${e.attributes['when'] ?? ''}`)).toEqual(['a->b:yes', 'b->c:yes', 'x->z:', 'x->w:', 'y->z:', 'y->w:']);
    expect(graph.nodes.map((n) => n.id)).toEqual(['a', 'b', 'c', 'x', 'y', 'z', 'w']);
  });

  it('reads graph attributes from graph [...] and key=value, and clusters with their nodes', () => {
    const graph = readDot(`digraph plan {
      mode=workflow
      graph [goal="ship it", label=Plan]
      start
      subgraph cluster_a {
        label="Group A"
        a1; a2
        subgraph cluster_b { label=B; b1 }
        subgraph plain { p }
      }
      start -> a1
    }`);
    expect(graph.name).toBe('plan');
    expect(graph.attributes).toEqual({ mode: 'workflow', goal: 'ship it', label: 'Plan' });
    expect(graph.clusters.map((c) => [c.id, c.attributes, c.parent])).toEqual([
      ['cluster_a', { label: 'Group A' }, undefined],
      ['cluster_b', { label: 'B' }, 'cluster_a'],
    ]);
    expect(Object.fromEntries(graph.nodes.map((n) => [n.id, n.cluster]))).toEqual({
      start: undefined,
      a1: 'cluster_a',
      a2: 'cluster_a',
      b1: 'cluster_b',
      p: 'cluster_a',
    });
  });

  it('puts a node declared at the top into the cluster that mentions it later', () => {
    const graph = readDot('digraph { a -> b; subgraph cluster_x { label=X; a; b } }');
    expect(graph.nodes.map((n) => n.cluster)).toEqual(['cluster_x', 'cluster_x']);
  });

  it('merges repeated edges in a strict digraph and keeps them otherwise', () => {
    expect(readDot('strict digraph { a -> b [x=1]; a -> b [y=2] }').edges).toMatchObject([{ attributes: { x: '1', y: '2' } }]);
    expect(readDot('strict digraph { a }').strict).toBe(true);
    expect(pairs('digraph { a -> b; a -> b }')).toEqual(['a->b', 'a->b']);
  });

  it('ignores comments of every kind, and reads quoted, numeric, keyword and CJK ids', () => {
    const graph = readDot(`# preprocessor line
      digraph { /* block */ "step one" -> 2 // trailing
        "node" [label="节点 -> } ; //not a comment"]   # macro-style comment
        节点B -> "node"
      }`);
    expect(graph.nodes.map((n) => n.id)).toEqual(['step one', '2', 'node', '节点B']);
    expect(graph.nodes[2]!.attributes).toEqual({ label: '节点 -> } ; //not a comment' });
  });

  it('decodes values: \\" and \\\\ unescaped, other escapes kept, raw line breaks kept, continuations joined', () => {
    const text = ['digraph {', '  a [q="say \\"hi\\"", b="C:\\\\dir\\\\", n="line\\nbreak", raw="two', 'lines", cont="joined \\', 'here"]', '}'].join('\n');
    expect(attrs(text)['a']).toEqual({ q: 'say "hi"', b: 'C:\\dir\\', n: 'line\\nbreak', raw: 'two\nlines', cont: 'joined here' });
  });

  it('reads CRLF files, a byte-order mark and HTML labels', () => {
    const graph = readDot('\uFEFFdigraph {\r\n  a [label=<<b>bold</b>>, x="1\r\n2"];\r\n  a -> b\r\n}\r\n');
    expect(graph.nodes[0]!.attributes).toEqual({ label: '<<b>bold</b>>', x: '1\r\n2' });
    expect(graph.edges[0]!.location).toEqual({ line: 4, column: 3 });
  });

  it('records where each node, edge and cluster is first mentioned', () => {
    const graph = readDot('digraph {\n  a [type=function]\n  subgraph cluster_x {\n    b\n  }\n  a -> c\n}');
    expect(graph.nodes.map((n) => [n.id, n.location])).toEqual([
      ['a', { line: 2, column: 3 }],
      ['b', { line: 4, column: 5 }],
      ['c', { line: 6, column: 8 }],
    ]);
    expect(graph.edges[0]!.location).toEqual({ line: 6, column: 3 });
    expect(graph.clusters[0]!.location).toEqual({ line: 3, column: 3 });
  });
});

describe('readDot on the seed examples', () => {
  it('reads the compact form: one line, spaces, commas and semicolons between attributes, Chinese values', () => {
    const graph = readDot(readFileSync(join(FIXTURES, 'valid/seed-004-example-1.dot'), 'utf8'));
    expect(graph.name).toBe('G');
    expect(graph.nodes.map((n) => n.id)).toEqual(['1', '2', '3', '4']);
    expect(graph.nodes[3]!.attributes).toEqual({
      label: '节点D',
      shape: 'ellipse',
      type: 'confirm',
      status: '待初始化',
      component: 'xx',
      payload: 'xx',
      question: '请查收xx',
      answer: 'xx',
    });
    expect(pairs(readFileSync(join(FIXTURES, 'invalid/seed-004-example-2.dot'), 'utf8'))).toEqual(['1->2', '2->3']);
    expect(attrs('digraph G {1 [a="x"; b="y", c="z" d=w];}')['1']).toEqual({ a: 'x', b: 'y', c: 'z', d: 'w' });
  });

  it('reads the pretty form', () => {
    const graph = readDot(readFileSync(join(FIXTURES, 'valid/pretty-workflow.dot'), 'utf8'));
    expect(graph.strict).toBe(true);
    expect(graph.nodes.map((n) => n.id)).toEqual(['fetch', 'short', 'long', 'both', 'approve', 'publish', 'discard']);
    expect(graph.nodes[1]!.attributes).toMatchObject({ type: 'function', toolCode: 'template', status: 'pending' });
    expect(graph.nodes[0]!.attributes['toolInput']).toBe('{"url": "https://example.com/changes/{{params.version}}"}');
    expect(pairs(readFileSync(join(FIXTURES, 'valid/pretty-workflow.dot'), 'utf8'))).toEqual([
      'fetch->short',
      'fetch->long',
      'short->both',
      'long->both',
      'both->approve',
      'approve->publish',
      'approve->discard',
    ]);
  });
});

describe('readDot errors', () => {
  it('DOT_SYNTAX names the line and column and what was expected, without a stack trace', () => {
    const d = diagnosticOf('digraph {\n  a [label="x"]\n  b [label=]\n}');
    expect(d).toMatchObject({ code: 'DOT_SYNTAX', severity: 'error', line: 3, column: 12 });
    expect(d.message).toBe('unexpected "]" at line 3, column 12; expected a quoted string, an HTML string, a name or a number');
    expect(d.message).not.toMatch(/peg\$|at parse|\.js/);
  });

  it('DOT_SYNTAX says when the text ends too early', () => {
    const d = diagnosticOf('digraph { a [label="x"');
    expect(d.code).toBe('DOT_SYNTAX');
    expect(d.message).toContain('unexpected end of input');
    expect(d.fix).toContain('closed');
  });

  it('DOT_EMPTY for empty, blank and comment-only input', () => {
    for (const text of ['', '  \n\t', '// nothing\n/* here */\n# either']) expect(diagnosticOf(text).code).toBe('DOT_EMPTY');
  });

  it('DOT_MULTIPLE_GRAPHS names the line of the second graph', () => {
    const d = diagnosticOf('digraph a { x }\n\n/* next */ strict digraph b { y }');
    expect(d).toMatchObject({ code: 'DOT_MULTIPLE_GRAPHS', line: 3 });
    expect(d.message).toContain('line 3');
  });

  it('DOT_UNDIRECTED for graph, with or without edges, and a fix', () => {
    expect(diagnosticOf('graph { a -- b }')).toMatchObject({ code: 'DOT_UNDIRECTED', fix: expect.stringContaining('digraph') });
    expect(diagnosticOf('graph { a -> b }').code).toBe('DOT_UNDIRECTED');
    expect(diagnosticOf('graph { a }').code).toBe('DOT_UNDIRECTED');
    expect(diagnosticOf('digraph { a -- b }')).toMatchObject({ code: 'DOT_SYNTAX', message: expect.stringContaining('"--"') });
  });

  it('DOT_TOO_LARGE over the byte limit or the syntax-element limit, saying the limit', () => {
    const big = `digraph { a [label="${'x'.repeat(3 * 1024 * 1024)}"] }`;
    expect(diagnosticOf(big, { maxBytes: 2 * 1024 * 1024 })).toMatchObject({ code: 'DOT_TOO_LARGE', message: expect.stringContaining('2 MiB') });
    expect(diagnosticOf('digraph { a [label="é"] }', { maxBytes: 20 })).toMatchObject({ code: 'DOT_TOO_LARGE', message: expect.stringContaining('20 bytes') });
    const many = `digraph { ${Array.from({ length: 50 }, (_, i) => `n${i};`).join(' ')} }`;
    expect(diagnosticOf(many, { maxASTNodes: 20 })).toMatchObject({ code: 'DOT_TOO_LARGE', message: expect.stringContaining('20') });
    expect(readDot(many).nodes).toHaveLength(50);
  });

  it('names the source in the thrown message', () => {
    expect(() => readDot('', { source: 'plans/x.dot' })).toThrow(/^plans\/x\.dot: error DOT_EMPTY/);
  });
});

describe('readDot errors for unclosed text', () => {
  it('DOT_SYNTAX points at a string, HTML string or comment that is never closed', () => {
    expect(diagnosticOf('digraph {\n  a [label="oops]\n  b\n}')).toMatchObject({
      code: 'DOT_SYNTAX',
      line: 2,
      column: 12,
      message: 'a quoted string starting at line 2, column 12 is never closed',
    });
    expect(diagnosticOf('digraph { a [label=<<b>x</b>] }')).toMatchObject({ code: 'DOT_SYNTAX', line: 1, column: 20, fix: 'add the closing >' });
    expect(diagnosticOf('digraph { a }\n/* trailing')).toMatchObject({ code: 'DOT_SYNTAX', line: 2, column: 1, fix: 'add the closing */' });
  });
});
