/** The fixture A2A agent (test/fixtures/a2a/agent.mjs) as tests start and watch it: a real process on loopback. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Output } from '../support/output.js';

export const AGENT = fileURLToPath(new URL('../fixtures/a2a/agent.mjs', import.meta.url));

export interface FixtureAgent {
  readonly base: string;
  readonly child: ChildProcess;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the fixture with `args` (`--record <file>`, `--token <t>`, `--card-url <url>`, `--slow-ms <n>`) and waits for its `listening` line. */
export async function startAgent(...args: string[]): Promise<FixtureAgent> {
  const output = new Output(`agent.mjs ${args.join(' ')}`);
  const child = spawn(process.execPath, [AGENT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.write('stdout', chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.write('stderr', chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code, signal) => {
      output.end(`exited (${code ?? signal})`);
      resolve(code);
    }),
  );
  const line = await output.waitFor(/^listening http:\/\/127\.0\.0\.1:\d+$/, 15_000);
  return {
    base: line.slice('listening '.length),
    child,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** What the fixture recorded (`--record <file>`), one object per line. */
export function recorded(file: string): Array<Record<string, unknown>> {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];
}

/** The fixture's counters: tasks created, tasks cancelled. */
export async function stats(agent: FixtureAgent): Promise<{ tasks: number; cancels: string[] }> {
  return (await (await fetch(`${agent.base}/_stats`)).json()) as { tasks: number; cancels: string[] };
}
