/**
 * Bounded replies (issue 14, cases 5 and 6): a reply over `reflection.maxReplyBytes` is refused before it is read;
 * the marker search is linear in the reply's length and keeps its offsets whatever the text holds ("İ" lower-cases
 * to two code units); a plan nested too deeply is a DOT_TOO_DEEP diagnostic placed in the reply, not a stack overflow.
 */
import { describe, expect, it } from 'vitest';
import { readDot } from '../../src/dot/index.js';
import { DEFAULT_MAX_REPLY_BYTES, parseReply, placeInReply, replyTooLarge, writeReply } from '../../src/llm/reply.js';
import { ValidationError, type Diagnostic } from '../../src/model/diagnostics.js';

const DOT = 'digraph G {\n  a [type="function", status="ready", toolCode="echo"];\n}\n';
const PLAN = `@EP@\n*graph=${DOT}@EP@\n`;
/** Generous: each shape below takes well under a second now, and took 12 s to 2 minutes before. */
const LINEAR_MS = 15_000;

function refusal(text: string, maxBytes?: number): Diagnostic {
  try {
    parseReply(text, maxBytes === undefined ? {} : { maxBytes });
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).diagnostics[0]!;
  }
  throw new Error('parseReply accepted the reply');
}

describe('parseReply: size', () => {
  it('refuses a reply over 256 KiB by default with REPLY_TOO_LARGE naming the size and the setting, and reads one at the limit', () => {
    expect(DEFAULT_MAX_REPLY_BYTES).toBe(262_144);
    const pad = (bytes: number) => `${'x'.repeat(bytes - Buffer.byteLength(PLAN) - 1)}\n${PLAN}`;
    expect(parseReply(pad(DEFAULT_MAX_REPLY_BYTES)).dot).toBe(DOT);
    expect(refusal(pad(DEFAULT_MAX_REPLY_BYTES + 1))).toEqual({
      code: 'REPLY_TOO_LARGE',
      severity: 'error',
      message: 'the reply is 256.0 KiB (262,145 bytes), more than the limit of 256 KiB; it was not read',
      fix: expect.stringContaining('reflection.maxReplyBytes (env DOTPLAN_MAX_REPLY_BYTES)'),
    });
  });

  it('counts UTF-8 bytes, not characters, and takes the limit it is given', () => {
    const cjk = `${'中'.repeat(100_000)}\n${PLAN}`; // 300,000 bytes in 100,000 characters
    expect(refusal(cjk)).toMatchObject({ code: 'REPLY_TOO_LARGE', message: expect.stringContaining('300,') });
    expect(parseReply(cjk, { maxBytes: 400_000 }).dot).toBe(DOT);
    expect(refusal(PLAN, 20)).toMatchObject({ code: 'REPLY_TOO_LARGE', message: expect.stringContaining('limit of 20 bytes') });
    expect(replyTooLarge(PLAN, 1000)).toBeUndefined();
  });
});

describe('parseReply: linear and Unicode-safe marker search', () => {
  it('reads the markers right after an "İ" (U+0130), which lower-cases to two code units', () => {
    const reply = `İstanbul İİİ\n@epupdatelog@\nadded a\n@epupdatelog@\n${PLAN}`;
    expect(parseReply(reply)).toEqual({ id: null, updateLog: 'added a', dot: DOT, dotLine: 6 });
    const inLog = writeReply({ id: '7', updateLog: 'İzmir: İ in the log', dot: DOT });
    expect(parseReply(`İ ${'İ'.repeat(50)}\n${inLog}`)).toEqual({ id: '7', updateLog: 'İzmir: İ in the log', dot: DOT, dotLine: 7 });
  });

  it('reads 900 KB of update-log markers in linear time (each marker lower-cased the whole reply again before)', () => {
    const reply = '@epupdatelog@\nx\n@epupdatelog@\n'.repeat(30_000) + PLAN;
    const started = performance.now();
    expect(parseReply(reply, { maxBytes: 2_000_000 })).toMatchObject({ updateLog: 'x', dot: DOT });
    expect(performance.now() - started).toBeLessThan(LINEAR_MS);
  });

  it('reads a 1.8 MB line of "@EP@ ```" in linear time (each marker rescanned its line before)', () => {
    const reply = `${'a @EP@ ```'.repeat(180_000)}\n${PLAN}`;
    const started = performance.now();
    expect(parseReply(reply, { maxBytes: 4_000_000 }).dot).toBe(DOT);
    expect(performance.now() - started).toBeLessThan(LINEAR_MS);
  });
});

describe('parseReply then the DOT reader: nesting', () => {
  it.each([2_300, 100_000])('gives DOT_TOO_DEEP with the reply line for a plan nesting subgraph { %i deep', (depth) => {
    const dot = `digraph G {\n${'subgraph {\n'.repeat(depth)}a [type="function", status="ready", toolCode="echo"];\n${'}\n'.repeat(depth)}}\n`;
    const reply = `@epupdatelog@\ndeep\n@epupdatelog@\n@EP@\n*graph=${dot}@EP@\n`;
    const parsed = parseReply(reply, { maxBytes: 10_000_000 });
    let diagnostic: Diagnostic | undefined;
    try {
      readDot(parsed.dot);
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      diagnostic = placeInReply((error as ValidationError).diagnostics[0]!, reply, parsed);
    }
    expect(diagnostic).toMatchObject({ code: 'DOT_TOO_DEEP', line: 106, column: 10, message: expect.stringContaining('at line 106, column 10') });
  });
});
