/** The fixture MCP server (test/fixtures/mcp/tool-server.mjs) as tests configure and watch it. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../src/mcp/servers.js';

export const FIXTURE = fileURLToPath(new URL('../fixtures/mcp/tool-server.mjs', import.meta.url));

/** The fixture over stdio, recording in the test's folder. */
export function stdioFixture(dir: string, ...flags: string[]): McpServerConfig {
  return { command: process.execPath, args: [FIXTURE, ...flags], env: { FIXTURE_DIR: dir } };
}

/** The pids of the fixture processes started so far. */
export function starts(dir: string): number[] {
  const path = join(dir, 'starts');
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
}

/** Whether a process still runs (a zombie waiting to be reaped counts as gone). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
