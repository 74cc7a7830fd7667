import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import { parseReply, placeInReply, writeReply, type ParsedReply } from '../../src/llm/reply.js';
import { formatDiagnostic, ValidationError, type Diagnostic } from '../../src/model/diagnostics.js';
import type { GraphNode, PlanGraph } from '../../src/model/types.js';
import { planGraph, withoutLocations } from '../dot/arbitraries.js';

const DOT = 'digraph G {\n  a [type="function", status="ready", toolCode="echo"];\n  b [type="confirm", status="pending", question="ok?"];\n  a -> b;\n}\n';

/** The REPLY_* diagnostic parseReply throws for `text`. */
function refusal(text: string): Diagnostic {
  try {
    parseReply(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    const { diagnostics } = error as ValidationError;
    expect(diagnostics).toHaveLength(1);
    return diagnostics[0]!;
  }
  throw new Error(`parseReply accepted ${JSON.stringify(text)}`);
}

/** The plan the reply holds, as the DOT reader sees it. */
function nodesOf(parsed: ParsedReply): string[] {
  return readDot(parsed.dot).nodes.map((n) => `${n.id}:${n.attributes['status']}`);
}

describe('parseReply: the format of seed 004', () => {
  it('reads the update log, the id, the DOT and the line where the DOT starts', () => {
    const reply = `@epupdatelog@\n## Changes\n- added b to ask for a confirmation\n@epupdatelog@\n@EP@\n*id=42\n*graph=${DOT}@EP@\n`;
    expect(parseReply(reply)).toEqual({ id: '42', updateLog: '## Changes\n- added b to ask for a confirmation', dot: DOT, dotLine: 7 });
  });

  it("reads the seed's own example, closing markers followed by text and all", () => {
    const reply = [
      '@epupdatelog@',
      '节点1需要用户先确认样本',
      '@epupdatelog@** 第二部分是最终更新后的EP内容,其中EP结构说明、EP节点属性说明、更新说明格式要求参考下面的描述,',
      ',使用\\"@EP@\\"作为特殊符号包裹更新信息,严格遵守以下格式:',
      '@EP@',
      '*id=1',
      '*graph=digraph G {1 [label = "标题1" shape=record type="function" toolCode="" status="待用户输入中" toolInput="" toolOutput="", question=""];2 [label = "标题2" shape=ellipse type="confirm" status="待初始化"];3 [label = "标题3" shape=record type="function" toolCode="samplePreAnalysis" status="待初始化" toolInput="" toolOutput="" profile="" question=""];1 -> 2; 2 -> 3;',
      '}',
      '@EP@** EP结构说明 **',
      '其中@EP@是起始标识符,@EP@是结束表示符',
    ].join('\n');
    const parsed = parseReply(reply);
    expect(parsed.id).toBe('1');
    expect(parsed.updateLog).toBe('节点1需要用户先确认样本');
    expect(parsed.dotLine).toBe(7);
    expect(parsed.dot.startsWith('digraph G {1 [label = "标题1"')).toBe(true);
    expect(nodesOf(parsed)).toEqual(['1:待用户输入中', '2:待初始化', '3:待初始化']);
  });
});

describe('parseReply: lenient about what surrounds the blocks', () => {
  it('ignores prose before, between and after the blocks', () => {
    const reply = `Sure! I looked at the results.\n\n@epupdatelog@\nadded b\n@epupdatelog@\nHere is the plan:\n@EP@\n*id=7\n*graph=${DOT}@EP@\nLet me know if the @EP@ above needs changes.\n`;
    const parsed = parseReply(reply);
    expect(parsed).toMatchObject({ id: '7', updateLog: 'added b', dot: DOT, dotLine: 9 });
  });

  it('accepts code fences around the whole reply, around each block and around the digraph', () => {
    const whole = `\`\`\`text\n@epupdatelog@\nlog\n@epupdatelog@\n@EP@\n*id=1\n*graph=${DOT}@EP@\n\`\`\`\n`;
    expect(parseReply(whole)).toMatchObject({ id: '1', updateLog: 'log', dot: DOT });
    const each = `\`\`\`markdown\n@epupdatelog@\nlog\n@epupdatelog@\n\`\`\`\n\n\`\`\`\n@EP@\n*id=1\n*graph=${DOT}@EP@\n\`\`\``;
    expect(parseReply(each)).toMatchObject({ id: '1', updateLog: 'log', dot: DOT, dotLine: 10 });
    const inside = `@EP@\n*id=1\n*graph=\n\`\`\`dot\n${DOT}\`\`\`\n@EP@`;
    expect(parseReply(inside)).toMatchObject({ id: '1', dot: DOT, dotLine: 5 });
    const fencedHeader = `@EP@\n\`\`\`\n*id=1\n*graph=${DOT}\`\`\`\n@EP@`;
    expect(parseReply(fencedHeader)).toMatchObject({ id: '1', dot: DOT, dotLine: 4 });
  });

  it('reads CRLF line ends, with the digraph on the line after *graph=', () => {
    const reply =
      '@epupdatelog@\r\nline one\r\nline two\r\n@epupdatelog@\r\n@EP@\r\n*id=p_1\r\n*graph=\r\ndigraph G {\r\n  a [type="function", status="ready", toolCode="echo"];\r\n}\r\n@EP@\r\n';
    const parsed = parseReply(reply);
    expect(parsed).toMatchObject({ id: 'p_1', updateLog: 'line one\nline two', dotLine: 8 });
    expect(parsed.dot).toBe('digraph G {\r\n  a [type="function", status="ready", toolCode="echo"];\r\n}\n');
    expect(nodesOf(parsed)).toEqual(['a:ready']);
  });

  it('gives id null for a new plan: no *id line, or an empty one', () => {
    expect(parseReply(`@EP@\n*graph=${DOT}@EP@`).id).toBeNull();
    expect(parseReply(`@EP@\n*id=\n*graph=${DOT}@EP@`).id).toBeNull();
  });

  it('reads *id with spaces around the = and the value', () => {
    expect(parseReply(`@EP@\n*id = 42  \n*graph=${DOT}@EP@`).id).toBe('42');
    expect(parseReply(`@EP@\n  *id= p_0abc\t\n  *graph = ${DOT}@EP@`).id).toBe('p_0abc');
  });

  it('gives an empty update log when the reply has none', () => {
    expect(parseReply(`@EP@\n*id=1\n*graph=${DOT}@EP@`).updateLog).toBe('');
  });

  it('allows blank lines anywhere in the @EP@ block', () => {
    const parsed = parseReply(`@EP@\n\n*id=3\n\n*graph=\n\n${DOT.replace('\n  a -> b', '\n\n  a -> b')}\n\n@EP@`);
    expect(parsed).toMatchObject({ id: '3', dotLine: 7 });
    expect(nodesOf(parsed)).toEqual(['a:ready', 'b:pending']);
  });

  it('reads a reply written on one line, and the plan block before the log', () => {
    const oneLine = '@epupdatelog@ added a @epupdatelog@ @EP@ *id=1 *graph=digraph G { a [type=function status=ready toolCode=echo] } @EP@';
    expect(parseReply(oneLine)).toEqual({ id: '1', updateLog: 'added a', dot: 'digraph G { a [type=function status=ready toolCode=echo] }\n', dotLine: 1 });
    const reversed = `@EP@\n*id=1\n*graph=${DOT}@EP@\n@epupdatelog@\nafter\n@epupdatelog@`;
    expect(parseReply(reversed)).toMatchObject({ id: '1', updateLog: 'after', dot: DOT });
  });

  it('takes an @EP@ inside a line of text as the opening marker when *id or *graph follows', () => {
    expect(parseReply(`Here is the plan: @EP@\n*id=5\n*graph=${DOT}@EP@`)).toMatchObject({ id: '5', dot: DOT, dotLine: 3 });
  });

  it('ends the plan at the first @EP@ outside DOT strings and comments', () => {
    const dot =
      'digraph G {\n  /* the @EP@ block */\n  a [type="function", status="ready", toolCode="echo", toolInput="say \\"@EP@\\"\n@EP@ too", label=<<b>@EP@</b>>]; // @EP@\n}\n';
    const parsed = parseReply(`@EP@\n*graph=${dot}@EP@\n`);
    expect(parsed.dot).toBe(dot);
    expect(readDot(parsed.dot).nodes[0]!.attributes).toMatchObject({ toolInput: 'say "@EP@"\n@EP@ too', label: '<<b>@EP@</b>>' });
  });

  it('leaves a quoted string that is never closed for the DOT reader to name', () => {
    const parsed = parseReply('@EP@\n*graph=digraph G {\n  a [label="open];\n}\n@EP@\n');
    expect(() => readDot(parsed.dot)).toThrow(/quoted string starting at line 2, column 12 is never closed/);
  });
});

describe('parseReply: strict about the plan', () => {
  it('refuses a reply without markers: REPLY_NO_PLAN, fix phrased for the model', () => {
    const d = refusal('I think the plan is fine as it is.\ndigraph G { a }');
    expect(d).toMatchObject({ code: 'REPLY_NO_PLAN', severity: 'error' });
    expect(d.fix).toMatch(/^wrap the plan in @EP@ markers: a line @EP@, then \*id=<plan id>/);
    expect(formatDiagnostic(d, 'reply')).toMatch(/^reply: error REPLY_NO_PLAN: .* Fix: wrap the plan in @EP@ markers: .* then a line @EP@$/);
  });

  it('names the line of an @EP@ mentioned inside a sentence when there is no block', () => {
    const d = refusal('The plan goes between\nthe @EP@ markers, but I forgot it.');
    expect(d).toMatchObject({ code: 'REPLY_NO_PLAN', line: 2 });
    expect(d.fix).toMatch(/start of its own line/);
  });

  it('refuses an @EP@ block that is never closed: REPLY_UNCLOSED at its line', () => {
    const d = refusal(`@epupdatelog@\nlog\n@epupdatelog@\n@EP@\n*id=1\n*graph=${DOT}`);
    expect(d).toMatchObject({ code: 'REPLY_UNCLOSED', line: 4 });
    expect(d.fix).toMatch(/line @EP@/);
  });

  it('refuses two @EP@ blocks: REPLY_TWO_PLANS at the second', () => {
    const d = refusal(`@EP@\n*id=1\n*graph=${DOT}@EP@\nor maybe:\n@EP@\n*id=1\n*graph=${DOT}@EP@`);
    expect(d).toMatchObject({ code: 'REPLY_TWO_PLANS', line: 10 });
    expect(d.message).toMatch(/first one starts at line 1/);
  });

  it('refuses a JSON object instead of a digraph: REPLY_NOT_DIGRAPH naming the line', () => {
    const d = refusal('@epupdatelog@\nlog\n@epupdatelog@\n@EP@\n*id=1\n*graph=\n{"nodes": [{"id": "a"}], "edges": []}\n@EP@');
    expect(d).toMatchObject({ code: 'REPLY_NOT_DIGRAPH', line: 7, column: 1 });
    expect(d.message).toMatch(/JSON/);
  });

  it('refuses an undirected graph and an empty block, naming the line', () => {
    const undirected = refusal('@EP@\n*id=1\n*graph=graph G { a -- b }\n@EP@');
    expect(undirected).toMatchObject({ code: 'REPLY_NOT_DIGRAPH', line: 3, column: 8 });
    expect(undirected.fix).toMatch(/digraph/);
    expect(refusal('text\n@EP@\n*id=1\n*graph=\n@EP@')).toMatchObject({ code: 'REPLY_NOT_DIGRAPH', line: 2 });
    expect(refusal('@EP@\n*id=1\n*graph=plan: a then b\n@EP@').message).toMatch(/starts with "plan:"/);
  });

  it('refuses an update log that is never closed: REPLY_LOG_UNCLOSED at its line', () => {
    const d = refusal(`Done.\n@epupdatelog@\nadded b\n@EP@\n*graph=${DOT}@EP@`);
    expect(d).toMatchObject({ code: 'REPLY_LOG_UNCLOSED', line: 2 });
    expect(d.fix).toMatch(/@epupdatelog@/);
  });
});

describe('placeInReply', () => {
  it('moves a DOT diagnostic to the line of the reply, and on the first DOT line to its column', () => {
    const reply = '@epupdatelog@\nlog\n@epupdatelog@\n@EP@\n*id=1\n*graph=digraph G { a [label="x"] b [ }\n@EP@\n';
    const parsed = parseReply(reply);
    const error = (() => {
      try {
        readDot(parsed.dot);
      } catch (e) {
        return (e as ValidationError).diagnostics[0]!;
      }
      throw new Error('read');
    })();
    expect(error.line).toBe(1);
    const placed = placeInReply(error, reply, parsed);
    expect(placed.line).toBe(6);
    expect(placed.column).toBe(error.column! + '*graph='.length);
    expect(placed.message).toContain(`at line 6, column ${placed.column}`);
    const later = placeInReply({ code: 'CYCLE', severity: 'error', message: 'm', line: 3, column: 2 }, reply, parsed);
    expect(later).toMatchObject({ line: 8, column: 2 });
  });
});

/** Text that has broken marker scanning: markers, quotes, fences, comment openers, line breaks. */
const markerText = fc.string({
  unit: fc.constantFrom(
    '@EP@',
    '@ep@',
    '@epupdatelog@',
    '*graph=',
    '*id=',
    '"',
    '\\',
    '\n',
    '\r\n',
    '}',
    '{',
    '//',
    '/*',
    '*/',
    '#',
    '<',
    '>',
    '<b>',
    '```',
    ' ',
    'a',
    '中',
  ),
  maxLength: 8,
});

const markerGraph: fc.Arbitrary<PlanGraph> = fc
  .record({
    nodes: fc.uniqueArray(fc.record({ id: markerText, label: markerText, toolInput: markerText }), { selector: (n) => n.id, minLength: 1, maxLength: 4 }),
    goal: markerText,
    when: markerText,
  })
  .map(({ nodes, goal, when }) => {
    const graphNodes: GraphNode[] = nodes.map((n) => ({
      id: n.id,
      attributes: { label: n.label, type: 'function', status: 'pending', toolInput: n.toolInput },
    }));
    const edges = graphNodes.length > 1 ? [{ from: graphNodes[0]!.id, to: graphNodes[1]!.id, attributes: { when } }] : [];
    return { strict: false, attributes: { goal }, nodes: graphNodes, edges, clusters: [] };
  });

const replyId = fc.option(fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/), fc.constantFrom('1', 'p_0mhx2k1a9q3z8f', '计划 7', 'plan one')), { nil: null });

/** Markdown update logs: trimmed, without CR and without the log's own marker (what writeReply accepts). */
const updateLog = fc
  .string({
    unit: fc.constantFrom(
      '# Changes',
      '- added node 3',
      '**bold**',
      '`code`',
      '```dot',
      '```',
      '@EP@',
      '*graph=digraph {}',
      '*id=9',
      '> quote',
      '中文',
      ' ',
      '\n',
      '\t',
      'text',
    ),
  })
  .chain((markdown) =>
    fc.string().map((free) =>
      `${markdown}\n${free}`
        .replace(/\r/g, '')
        .replace(/@epupdatelog@/gi, '')
        .trim(),
    ),
  );

describe('writeReply → parseReply round trip', () => {
  it('gives back the id, the update log and the DOT text, whatever the values in the plan hold', () => {
    fc.assert(
      fc.property(replyId, updateLog, fc.oneof(planGraph, markerGraph), (id, log, graph) => {
        const dot = writeDot(graph);
        const reply = writeReply({ id, updateLog: log, dot });
        const dotLine = log.split('\n').length + 4 + (id === null ? 0 : 1);
        expect(parseReply(reply)).toEqual({ id, updateLog: log, dot, dotLine });
        expect(withoutLocations(readDot(parseReply(reply).dot))).toEqual(graph);
      }),
      { numRuns: 400 },
    );
  });

  it('writes the format of seed 004, *id left out for a new plan', () => {
    expect(writeReply({ id: '1', updateLog: 'log', dot: DOT })).toBe(`@epupdatelog@\nlog\n@epupdatelog@\n@EP@\n*id=1\n*graph=${DOT}@EP@\n`);
    expect(writeReply({ updateLog: '', dot: DOT })).toBe(`@epupdatelog@\n\n@epupdatelog@\n@EP@\n*graph=${DOT}@EP@\n`);
  });

  it('refuses what it could not read back: a log holding its marker, an id on two lines', () => {
    expect(() => writeReply({ updateLog: 'see @epupdatelog@', dot: DOT })).toThrow(/marker @epupdatelog@/);
    expect(() => writeReply({ id: 'a\nb', updateLog: '', dot: DOT })).toThrow(/cannot be written on an \*id line/);
  });
});
