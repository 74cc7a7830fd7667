/**
 * A text as JSON when it parses, else as text: the tools' inputs and upstream outputs inserted as text.
 * It refuses most texts that are not JSON by their first characters (no exception thrown): those
 * refusals must never refuse a text JSON.parse takes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonOrText } from '../../src/tools/json-or-text.js';

describe('jsonOrText', () => {
  it('gives what JSON.parse gives, or the text where it throws, for any text (its quick refusals never refuse JSON)', () => {
    const plain = (text: string): unknown => {
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    };
    const space = fc.constantFrom('', ' ', '\t', '\n', '\r', ' \n ', '\u00a0', '\ufeff');
    const texts = fc.oneof(
      fc.string(),
      fc.json(),
      fc.tuple(space, fc.json(), space).map(([a, json, b]) => a + json + b),
      fc.tuple(space, fc.constantFrom('{', '[', '{{', '{ {', '{ "', '-', 't', 'n', 'x'), fc.string(), space).map((parts) => parts.join('')),
      fc.constantFrom('{{nodes.a.output}}', ' {}', '{ }', 'true', 'nul', '-1', '- 1', '"x"', '\u00a0{"a":1}'),
    );
    fc.assert(
      fc.property(texts, (text) => {
        expect(jsonOrText(text)).toEqual(plain(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives parsed JSON and keeps a reference or plain text as it is', () => {
    expect(jsonOrText(' {"a": [1, true, null]} ')).toEqual({ a: [1, true, null] });
    expect(jsonOrText('{{nodes.fetch.output}}')).toBe('{{nodes.fetch.output}}');
    expect(jsonOrText('{ }')).toEqual({});
    expect(jsonOrText('nothing')).toBe('nothing');
    expect(jsonOrText('3 apples')).toBe('3 apples');
  });
});
