/**
 * `dotplan agent list`: the agents agent nodes may name, from the config file — the shipped example
 * (`demo/agents.json`) as a table and as JSON; none configured says how to add one; a config whose
 * agents cannot be used is refused naming the file and the agent's field, with no stack trace.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const EXAMPLE = resolve('demo/agents.json');

describe('dotplan agent list', () => {
  let cwd: string;
  beforeAll(() => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-agent-list-'));
  });
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it("lists the shipped example's agents: a row each with kind, tools, the agents it may call and what it does", async () => {
    const listed = await runCli(['agent', 'list', '--config', EXAMPLE], { cwd });
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^CODE\s+KIND\s+TOOLS\s+AGENTS\s+TEMPLATE\s+DESCRIPTION$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^leader\s+reflection\s+-\s+searcher,writer\s+-\s+plans the work and hands it to the others$/),
      expect.stringMatching(/^searcher\s+react\s+echo\s+-\s+-\s+finds facts with its search tool$/),
      expect.stringMatching(/^writer\s+reflection\s+-\s+-\s+-\s+writes text from facts$/),
    ]);
  });

  it('prints the agents as the config file gives them with --json', async () => {
    const listed = await runCli(['agent', 'list', '--config', EXAMPLE, '--json'], { cwd });
    expect(listed.code, listed.stderr).toBe(0);
    const config = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { agents: unknown[] };
    expect(JSON.parse(listed.stdout)).toEqual(config.agents);
  });

  it('says how to add one when none is configured', async () => {
    const listed = await runCli(['agent', 'list'], { cwd });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe('');
    expect(listed.stderr).toContain('no agents are configured: add "agents": [{"code": "searcher", "kind": "react"');
  });

  it("refuses a config whose agent cannot be used, naming the file and the agent's field", async () => {
    const file = join(cwd, 'bad.json');
    writeFileSync(file, JSON.stringify({ agents: [{ code: 'x', kind: 'react' }] }));
    const listed = await runCli(['agent', 'list', '--config', file], { cwd });
    expect(listed.code).toBe(1);
    expect(listed.stderr).toContain(`config file ${file}`);
    expect(listed.stderr).toContain('agents[0] (x).description must say what the agent does');
    expect(listed.stderr).not.toMatch(/\n\s+at /);
  });
});
