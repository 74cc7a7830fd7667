/**
 * `dotplan mcp tools` and `dotplan validate` with MCP servers in the config file: the tools as plans
 * call them, from the cache (the server started once, for the first listing); `--refresh` asks again;
 * a literal input a tool's schema refuses is named by `validate`; a server that cannot start is a
 * clear error, not a stack trace, and a refresh it fails keeps the cached list.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../support/in-process.js';
import { starts, stdioFixture } from '../mcp/fixture.js';

describe('dotplan mcp tools', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dotplan-mcp-cli-'));
    writeFileSync(join(dir, 'dotplan.config.json'), JSON.stringify({ mcp: { fx: stdioFixture(dir) } }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the tools as plans call them, from the cache; --refresh lists them from the server again', async () => {
    const first = await runInProcess(['mcp', 'tools'], { cwd: dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/mcp:fx\/add\s+Adds two numbers\./);
    expect(first.stdout).toContain('mcp:fx/slow');
    expect(starts(dir)).toHaveLength(1);

    const json = await runInProcess(['mcp', 'tools', '--server', 'fx', '--json'], { cwd: dir });
    const tools = JSON.parse(json.stdout) as Array<{ code: string; inputSchema: { properties: Record<string, unknown> } }>;
    expect(tools.find((t) => t.code === 'mcp:fx/greet')!.inputSchema.properties).toHaveProperty('name');
    const detail = await runInProcess(['mcp', 'tools', '--server', 'fx'], { cwd: dir });
    expect(detail.stdout).toContain('input: a (number, required): the first number; b (number, required): the second number');
    expect(starts(dir)).toHaveLength(1);

    expect((await runInProcess(['mcp', 'tools', '--refresh'], { cwd: dir })).code).toBe(0);
    expect(starts(dir)).toHaveLength(2);
  });

  it('a refresh the server fails keeps the cached tools, and says why', async () => {
    expect((await runInProcess(['mcp', 'tools'], { cwd: dir })).code).toBe(0);
    // The fixture notes each start in FIXTURE_DIR/starts: a folder there makes it fail as it starts.
    rmSync(join(dir, 'starts'));
    mkdirSync(join(dir, 'starts'));
    const refreshed = await runInProcess(['mcp', 'tools', '--refresh'], { cwd: dir });
    expect(refreshed.code).toBe(1);
    expect(refreshed.stderr).toContain('MCP server "fx" could not be started or reached');
    expect(refreshed.stdout).toContain('mcp:fx/add');
    const cached = await runInProcess(['mcp', 'tools'], { cwd: dir });
    expect(cached.code).toBe(0);
    expect(cached.stdout).toContain('mcp:fx/add');
  });

  it('validate names the field a literal toolInput gets wrong, from the cache', async () => {
    writeFileSync(join(dir, 'plan.dot'), 'digraph p {\n  a [type=function toolCode="mcp:fx/add" toolInput="{\\"a\\": 1}"]\n}\n');
    const result = await runInProcess(['validate', 'plan.dot'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toMatch(/plan\.dot:2.*TOOL_INPUT_INVALID.*must have required property 'b'/s);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unknown server, and a server that cannot start, are errors that say what to fix', async () => {
    const unknown = await runInProcess(['mcp', 'tools', '--server', 'nope'], { cwd: dir });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no MCP server "nope" is configured; configured: fx');
    writeFileSync(join(dir, 'dotplan.config.json'), JSON.stringify({ mcp: { broken: { command: 'no-such-program-dotplan' } } }));
    const broken = await runInProcess(['mcp', 'tools'], { cwd: dir });
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain('MCP server "broken" could not be started or reached');
    expect(broken.stderr).not.toMatch(/\n\s+at /);
    writeFileSync(join(dir, 'dotplan.config.json'), JSON.stringify({ mcp: { bad: { command: 'node', env: { TOKEN: 7 } } } }));
    const invalid = await runInProcess(['mcp', 'tools'], { cwd: dir });
    expect(invalid.stderr).toContain('"mcp" = ');
    expect(invalid.stderr).toContain('mcp.bad.env.TOKEN must be a string');
  });
});
