/**
 * A configured MCP server that cannot be started (and whose tools were never listed) stops only what
 * needs its tools: an operator still creates plans that do not use it, shows, lists and cancels them
 * and reads the inbox; `validate` of a plan that calls it names the server and why, and a worker does
 * not start, saying so; a failed listing stands for a minute, so that commands meanwhile do not each wait on
 * the server again. Before, every command that opened the database failed with the server's error.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliDatabase, testBackend } from '../support/db.js';
import { runCli } from './run-cli.js';

describe(`a configured MCP server that is down (${testBackend()})`, () => {
  let cwd: string;
  let db: string[];
  let drop: (() => Promise<void>) | undefined;
  const cli = (...args: string[]) => runCli([...args, ...db], { cwd });

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-mcp-down-'));
    ({ args: db, drop } = await cliDatabase());
    writeFileSync(join(cwd, 'dotplan.config.json'), JSON.stringify({ mcp: { down: { command: 'no-such-program-dotplan' } } }));
    writeFileSync(join(cwd, 'plain.dot'), 'digraph { ask [type=confirm question="go on?"] }');
    writeFileSync(join(cwd, 'calls-it.dot'), 'digraph {\n  read [type=function toolCode="mcp:down/read_file" toolInput="{}"]\n}\n');
  });
  afterAll(async () => {
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('leaves the commands that do not use its tools working', async () => {
    const created = await cli('plan', 'create', '--dot', 'plain.dot', '--title', 'no MCP here');
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();
    expect((await cli('plan', 'list')).stdout).toContain('no MCP here');
    const shown = await cli('plan', 'show', id);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('question="go on?"');
    expect((await cli('validate', 'plain.dot')).code).toBe(0);
    const cancelled = await cli('plan', 'cancel', id);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain('cancelled');
    expect((await cli('inbox')).code).toBe(0);
  });

  it('does not try again for a minute: each command would otherwise wait on the server (a refresh tries at once)', async () => {
    // An HTTP server that drops every connection it accepts, counting them.
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const config = join(cwd, 'drops.config.json');
    writeFileSync(config, JSON.stringify({ mcp: { drops: { url: `http://127.0.0.1:${port}/mcp` } } }));
    try {
      const first = await cli('validate', 'plain.dot', '--config', config);
      expect(first.code, first.stderr).toBe(0);
      const tried = connections;
      expect(tried).toBeGreaterThan(0);
      const listed = await cli('plan', 'list', '--config', config);
      expect(listed.code, listed.stderr).toBe(0);
      const again = await cli('validate', 'plain.dot', '--config', config);
      expect(again.code, again.stderr).toBe(0);
      expect(connections).toBe(tried);
      const refreshed = await cli('mcp', 'tools', '--refresh', '--config', config);
      expect(refreshed.code).toBe(1);
      expect(refreshed.stderr).toContain('MCP server "drops" could not be started or reached');
      expect(connections).toBeGreaterThan(tried);
      const reported = await cli('mcp', 'tools', '--config', config);
      expect(reported.code).toBe(1);
      expect(reported.stderr).toContain('tried again a minute later, or now by `dotplan mcp tools --refresh`');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('names the server and why where its tools are needed: validating a plan that calls it, starting a worker', async () => {
    const validated = await cli('validate', 'calls-it.dot');
    expect(validated.code).toBe(1);
    const said = validated.stdout + validated.stderr;
    expect(said).toContain('calls-it.dot:2: error TOOL_UNKNOWN: tool "mcp:down/read_file" of node "read" is not known: MCP server "down" could not be started');
    expect(said).toContain('Fix: start MCP server "down"');
    const worker = await cli('worker');
    expect(worker.code).not.toBe(0);
    expect(worker.stderr).toContain('a worker needs the tools of MCP server "down", which could not be listed: MCP server "down" could not be started');
    expect(worker.stderr).not.toMatch(/\n\s+at /);
  });
});
