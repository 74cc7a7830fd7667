/**
 * The statement caches' lookup (src/store/sql/text-cache.ts) keys texts by their length and a sample
 * of their characters: it must still answer exactly as a Map of the whole texts does, for texts that
 * differ only where it does not look, and make each text's value once until it empties itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sampleKey, TextCache } from '../../src/store/sql/text-cache.js';

/** Texts of one length that differ at a few places: most of them share a sampled key. */
const lookalikes = fc
  .record({
    length: fc.integer({ min: 0, max: 400 }),
    base: fc.constantFrom('a', 'SELECT x FROM t WHERE id = ? AND status = ? ', '?, '),
    edits: fc.array(fc.array(fc.tuple(fc.nat(), fc.constantFrom('a', 'b', '?', ' ')), { maxLength: 3 }), { minLength: 1, maxLength: 12 }),
  })
  .map(({ length, base, edits }) => {
    const whole = base.repeat(Math.ceil(length / base.length) + 1).slice(0, length);
    return edits.map((changes) => {
      const chars = [...whole];
      for (const [at, char] of changes) if (chars.length > 0) chars[at % chars.length] = char;
      return chars.join('');
    });
  });

describe('TextCache', () => {
  it('answers as a Map of the whole texts, making each value once, for texts that differ where it does not sample', () => {
    fc.assert(
      fc.property(lookalikes, fc.array(fc.nat(), { maxLength: 60 }), (texts, order) => {
        const cache = new TextCache<number>(1000);
        const map = new Map<string, number>();
        let made = 0;
        for (const i of [...order, ...texts.keys()]) {
          // A fresh string each time, as the statement builders make them.
          const text = [...texts[i % texts.length]!].join('');
          const value = cache.getOrMake(text, () => made++);
          if (!map.has(text)) map.set(text, value);
          expect(value).toBe(map.get(text));
        }
        expect(made).toBe(map.size);
        expect(cache.size).toBe(map.size);
      }),
    );
  });

  it('keys the lookalikes alike often (so the whole-text comparison is what tells them apart)', () => {
    const text = 'SELECT a, b, c FROM t WHERE x = ? '.repeat(20);
    const other = text.slice(0, 101) + '!' + text.slice(102);
    expect(other).not.toBe(text);
    expect(sampleKey(other)).toBe(sampleKey(text));
    const cache = new TextCache<string>(10);
    expect(cache.getOrMake(text, () => 'first')).toBe('first');
    expect(cache.getOrMake(other, () => 'second')).toBe('second');
    expect(cache.getOrMake(text, () => 'again')).toBe('first');
  });

  it('empties itself at its limit before taking one more text, and makes values afresh after', () => {
    const cache = new TextCache<string>(3);
    for (const text of ['a', 'b', 'c']) cache.getOrMake(text, (t) => t.toUpperCase());
    expect(cache.size).toBe(3);
    expect(cache.getOrMake('d', () => 'D')).toBe('D');
    expect(cache.size).toBe(1);
    expect(cache.getOrMake('a', () => 'made again')).toBe('made again');
  });
});
