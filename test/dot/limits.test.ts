/**
 * How large a plan dotplan reads: the limits are settings with defaults that fit 100,000-node plans,
 * an input over a limit is refused naming the setting that raises it, and a well-formed file nested
 * too deeply says so instead of "the text ends too early".
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dotLimits } from '../../src/config/dot-limits.js';
import { resolveConfig } from '../../src/config/index.js';
import { readDot, writeDot } from '../../src/dot/index.js';
import { validateDot } from '../../src/validate/index.js';
import { cleanEnv, runDotplan } from '../support/cli.js';

const tools = { has: () => true, list: () => [] };
/** Reading, validating, writing and reading back 5.7 MB of DOT: ~15 s on an idle 2-core machine, 45-90 s on a loaded one. */
const CPU_BOUND_MS = 300_000;

function chain(n: number): string {
  const lines = ['digraph big {'];
  for (let i = 0; i < n; i++) lines.push(`n${i} [type=function status=pending toolCode=echo label="step ${i}" toolInput="{\\"i\\": ${i}}"]`);
  for (let i = 1; i < n; i++) lines.push(`n${i - 1} -> n${i}`);
  lines.push('}');
  return lines.join('\n');
}

describe('DOT limits', () => {
  it(
    'read and validate a 50,000-node plan (5.7 MB) with the defaults, and read back what dotplan writes of it',
    () => {
      const result = validateDot(chain(50_000), { tools });
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(result.graph!.nodes).toHaveLength(50_000);
      const written = writeDot(result.graph!);
      expect(written.length).toBeGreaterThan(2 * 1024 * 1024); // the old limit
      expect(readDot(written).nodes).toHaveLength(50_000);
    },
    CPU_BOUND_MS,
  );

  it('are settings: a plan over the configured size or element count is refused, naming the setting', async () => {
    const config = await resolveConfig({
      env: { DOTPLAN_MAX_DOT_BYTES: '1000', DOTPLAN_MAX_DOT_ELEMENTS: '200' },
      cwd: mkdtempSync(join(tmpdir(), 'dotplan-limits-')),
    });
    expect(config.limits).toMatchObject({ maxDotBytes: 1000, maxDotElements: 200 });
    const bytes = validateDot(chain(30), { tools, ...dotLimits(config) });
    expect(bytes.diagnostics).toMatchObject([{ code: 'DOT_TOO_LARGE', message: expect.stringMatching(/more than the limit of 1000 bytes/) }]);
    expect(bytes.diagnostics[0]!.fix).toMatch(/raise the setting limits\.maxDotBytes \(env DOTPLAN_MAX_DOT_BYTES\)/);
    const elements = validateDot(chain(30), {
      tools,
      ...dotLimits({ limits: { maxDotBytes: 1_000_000, maxDotElements: 200, maxPlanDepth: 4, maxChildPlans: 100 } }),
    });
    expect(elements.diagnostics).toMatchObject([{ code: 'DOT_TOO_LARGE', message: expect.stringMatching(/more than 200 DOT elements/) }]);
    expect(elements.diagnostics[0]!.fix).toMatch(/limits\.maxDotElements \(env DOTPLAN_MAX_DOT_ELEMENTS\)/);
  });

  it('apply to `dotplan validate` through the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotplan-limits-'));
    writeFileSync(join(dir, 'plan.dot'), chain(30));
    const small = await runDotplan(['validate', join(dir, 'plan.dot')], { env: cleanEnv({ DOTPLAN_MAX_DOT_BYTES: '1000' }) });
    expect(small.code).toBe(1);
    expect(small.stderr).toMatch(/DOT_TOO_LARGE.*limits\.maxDotBytes/);
    const roomy = await runDotplan(['validate', join(dir, 'plan.dot')], { env: cleanEnv() });
    expect(roomy.code).toBe(0);
  });

  it('say that a well-formed file with 10,000 nested subgraphs is nested too deeply', () => {
    const depth = 10_000;
    const text = `digraph p {${'subgraph { '.repeat(depth)}a [type=function toolCode=echo status=pending]${' }'.repeat(depth)}}`;
    const result = validateDot(text, { tools });
    expect(result.diagnostics).toMatchObject([{ code: 'DOT_TOO_DEEP', line: 1, column: 1121, message: expect.stringMatching(/nests deeper than 100 levels/) }]);
    expect(result.diagnostics[0]!.message).not.toMatch(/ends too early/);
  });

  it('read subgraphs nested 100 deep and refuse 101, naming the line of the first brace too deep', () => {
    const nested = (depth: number) =>
      [
        'digraph p {',
        ...Array.from({ length: depth }, (_, i) => `subgraph cluster_${i} {`),
        'a [type=function toolCode=echo status=pending]',
        '}'.repeat(depth),
        '}',
      ].join('\n');
    const hundred = validateDot(nested(100), { tools });
    expect(hundred.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(hundred.graph!.clusters).toHaveLength(100);
    expect(readDot(writeDot(hundred.graph!)).clusters).toHaveLength(100);
    expect(validateDot(nested(101), { tools }).diagnostics).toMatchObject([{ code: 'DOT_TOO_DEEP', line: 102, column: 22 }]);
  });

  it('count no brace inside quoted strings, HTML strings and comments', () => {
    const braces = '{'.repeat(500);
    const text = `digraph p {\n// ${braces}\n/* ${braces} */\na [type=function toolCode=echo status=pending label=<${braces}> toolInput="${braces}"]\n}`;
    expect(validateDot(text, { tools }).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});
