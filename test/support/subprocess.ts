/**
 * The `dotplan` command as a separate process: `node bin/dotplan.js ...` (the built dist/, so run
 * `npm run build` first; `npm test` does). For the tests where the process is the point: signals,
 * a crash (SIGKILL), several workers on one database, wake-ups across processes, the package's bin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Output } from './output.js';
import { cleanEnv, type DotplanRun, type RunOptions, type RunResult } from './run.js';

export const DOTPLAN_BIN = fileURLToPath(new URL('../../bin/dotplan.js', import.meta.url));

export interface DotplanProcess extends DotplanRun {
  readonly child: ChildProcess;
  readonly pid: number;
  kill(signal?: NodeJS.Signals): void;
}

/** Runs `dotplan <args>` in a subprocess to the end. */
export function runDotplanProcess(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return spawnDotplan(args, options).exited;
}

/** Starts `dotplan <args>` in a subprocess and returns at once. */
export function spawnDotplan(args: readonly string[], options: RunOptions = {}): DotplanProcess {
  const started = Date.now();
  const output = new Output(`dotplan ${args.join(' ')}`);
  const child = spawn(process.execPath, [DOTPLAN_BIN, ...args], {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.write('stdout', chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.write('stderr', chunk));
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  const killer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  let hasExited = false;
  const exited = new Promise<RunResult>((resolve) => {
    child.on('close', (code, signal) => {
      hasExited = true;
      clearTimeout(killer);
      output.end(`exited (${code ?? signal})`);
      resolve({ code, signal, stdout: output.stdout, stderr: output.stderr, elapsedMs: Date.now() - started });
    });
  });
  const kill = (signal: NodeJS.Signals = 'SIGTERM') => void (hasExited || child.kill(signal));
  return {
    child,
    pid: child.pid!,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    exited,
    kill,
    stop: kill,
    hasExited: () => hasExited,
    waitForOutput: (pattern, timeoutMs) => output.waitFor(pattern, timeoutMs),
  };
}
