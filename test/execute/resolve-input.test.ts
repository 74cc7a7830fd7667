import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseToolInput, resolveReferences, resolveToolInput, type ReferenceScope } from '../../src/execute/resolve-input.js';
import { ToolError } from '../../src/errors/errors.js';

function scope(
  nodes: Record<string, { output?: string | null; answer?: string | null; status?: string }>,
  params: Record<string, string> = {},
): ReferenceScope {
  return { params, nodes: (id) => nodes[id] };
}

const s = scope(
  {
    fetch: { output: JSON.stringify({ items: [{ url: 'https://a.example', title: 'He said "hi"' }], count: 1 }) },
    note: { output: 'plain text, not JSON' },
    ask: { answer: 'yes', output: null },
    'step 1': { output: '42' },
  },
  { topic: 'DOT "plans"', audience: 'ops' },
);

describe('resolveReferences (text)', () => {
  it('substitutes params, outputs, answers and JSON paths', () => {
    expect(resolveReferences('About {{params.topic}} for {{ params.audience }}', s)).toBe('About DOT "plans" for ops');
    expect(resolveReferences('first: {{nodes.fetch.output.items[0].url}} ({{nodes.fetch.output.count}})', s)).toBe('first: https://a.example (1)');
    expect(resolveReferences('answer={{nodes.ask.answer}}; note={{nodes.note.output}}', s)).toBe('answer=yes; note=plain text, not JSON');
    expect(resolveReferences('{{nodes["step 1"].output}}!', s)).toBe('42!');
  });

  it('inserts an object as JSON', () => {
    expect(resolveReferences('item: {{nodes.fetch.output.items[0]}}', s)).toBe('item: {"url":"https://a.example","title":"He said \\"hi\\""}');
  });

  it('leaves placeholders that are not plan references for the tool', () => {
    expect(resolveReferences('Hello {{name}} about {{params.topic}}', s)).toBe('Hello {{name}} about DOT "plans"');
  });

  it('fails, non-retryable, on a missing node, output, answer, path or parameter', () => {
    const cases: [string, RegExp][] = [
      ['{{nodes.ghost.output}}', /no node "ghost"/],
      ['{{nodes.ask.output}}', /node "ask" has no output/],
      ['{{nodes.fetch.answer}}', /node "fetch" has no answer/],
      ['{{nodes.fetch.output.items[3].url}}', /has no items\[3\]/],
      ['{{nodes.note.output.x}}', /output of node "note" is not JSON/],
      ['{{params.missing}}', /no parameter "missing"/],
    ];
    for (const [text, message] of cases) {
      let error: unknown;
      try {
        resolveReferences(text, s);
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(ToolError);
      expect((error as ToolError).retryable, text).toBe(false);
      expect((error as ToolError).message, text).toMatch(message);
    }
  });
});

describe('resolveToolInput', () => {
  it('parses JSON input and resolves inside string values without breaking quotes', () => {
    const input = resolveToolInput('{"q": "topic: {{params.topic}}", "title": "{{nodes.fetch.output.items[0].title}}"}', s);
    expect(input).toEqual({ q: 'topic: DOT "plans"', title: 'He said "hi"' });
  });

  it('substitutes the structured value for a leaf that is exactly one reference', () => {
    expect(resolveToolInput('{"pick": "items[0].url", "from": "{{nodes.fetch.output}}"}', s)).toEqual({
      pick: 'items[0].url',
      from: { items: [{ url: 'https://a.example', title: 'He said "hi"' }], count: 1 },
    });
    expect(resolveToolInput('{"n": "{{nodes.fetch.output.count}}", "list": ["{{nodes.fetch.output.items}}"]}', s)).toEqual({
      n: 1,
      list: [[{ url: 'https://a.example', title: 'He said "hi"' }]],
    });
  });

  it('keeps an answer as text even when it looks like JSON', () => {
    const yes = scope({ ask: { answer: 'true' } });
    expect(resolveToolInput('{"approved": "{{nodes.ask.answer}}"}', yes)).toEqual({ approved: 'true' });
  });

  it('resolves text input, and a whole-reference text input to the value', () => {
    expect(resolveToolInput('Write about {{params.topic}}', s)).toBe('Write about DOT "plans"');
    expect(resolveToolInput('{{nodes.fetch.output.items[0]}}', s)).toEqual({ url: 'https://a.example', title: 'He said "hi"' });
    expect(resolveToolInput(undefined, s)).toBeUndefined();
  });

  it('never produces broken JSON, whatever an upstream output holds', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const sc = scope({ up: { output: text } });
        const input = resolveToolInput('{"a": "before {{nodes.up.output}} after", "b": ["{{nodes.up.output}}"]}', sc) as {
          a: string;
          b: unknown[];
        };
        expect(input.a).toBe(`before ${text} after`);
        expect(input.b).toEqual([parseToolInput(text)]);
      }),
    );
  });
});

describe('a skipped node: finished with no output', () => {
  const skipped = scope({ gone: { status: 'skipped' }, ask: { status: 'skipped' } });

  it('inserts nothing as text, for its output, an output path and its answer', () => {
    expect(resolveReferences('[{{nodes.gone.output}}|{{nodes.gone.output.items[0]}}|{{nodes.ask.answer}}]', skipped)).toBe('[||]');
  });

  it('gives null where a JSON leaf or the whole input is exactly one reference to it', () => {
    expect(resolveToolInput('{"data": "{{nodes.gone.output}}", "first": "{{nodes.gone.output.items[0]}}", "ok": "{{nodes.ask.answer}}"}', skipped)).toEqual({
      data: null,
      first: null,
      ok: null,
    });
    expect(resolveToolInput('{{nodes.gone.output}}', skipped)).toBeNull();
    expect(resolveToolInput('{"note": "was: {{nodes.gone.output}}"}', skipped)).toEqual({ note: 'was: ' });
  });
});

describe('parseToolInput', () => {
  it('gives JSON values parsed and anything else as text', () => {
    expect(parseToolInput('{"a":1}')).toEqual({ a: 1 });
    expect(parseToolInput('[1,2]')).toEqual([1, 2]);
    expect(parseToolInput('hello {world')).toBe('hello {world');
    expect(parseToolInput('')).toBe('');
  });
});
