/**
 * The `dotplan` command as a user runs it: `node bin/dotplan.js ...` in a subprocess (the built
 * dist/, so run `npm run build` first; `npm test` does). `runDotplan` waits for the command to end;
 * `spawnDotplan` starts a long-running one (a worker) and lets the test read its output, wait for a
 * line, signal it and wait for its exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';

export const DOTPLAN_BIN = fileURLToPath(new URL('../../bin/dotplan.js', import.meta.url));

export interface RunOptions {
  cwd?: string;
  /** The child's whole environment (not merged with this process's); see `cleanEnv`. */
  env?: NodeJS.ProcessEnv;
  /** Standard input; default: empty (closed at once, not a terminal). */
  input?: string;
  /** Kill the command (SIGKILL) after this long; default 60 s. */
  timeoutMs?: number;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall-clock time from spawn to exit. */
  elapsedMs: number;
}

/** Variables that change what dotplan does; tests set the ones they mean explicitly. */
const DOTPLAN_VARIABLES = /^(DATABASE_URL|DB|DOTPLAN_.*|OPENAI_.*)$/;

/** This process's environment without dotplan's own variables, plus `extra`. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!DOTPLAN_VARIABLES.test(key)) env[key] = value;
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/** Runs `dotplan <args>` to the end. */
export async function runDotplan(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const child = spawnDotplan(args, options);
  return child.exited;
}

export interface DotplanProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when a line of stdout or stderr matches (rejects after `timeoutMs` or if the process exits first). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<RunResult>;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts `dotplan <args>` and returns at once. */
export function spawnDotplan(args: readonly string[], options: RunOptions = {}): DotplanProcess {
  const started = Date.now();
  const child = spawn(process.execPath, [DOTPLAN_BIN, ...args], {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    watchers.forEach((w) => w());
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    watchers.forEach((w) => w());
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.input ?? '');
  const killer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  let hasExited = false;
  const exited = new Promise<RunResult>((resolve) => {
    child.on('close', (code, signal) => {
      hasExited = true;
      clearTimeout(killer);
      watchers.forEach((w) => w());
      resolve({ code, signal, stdout, stderr, elapsedMs: Date.now() - started });
    });
  });
  return {
    child,
    pid: child.pid!,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    kill: (signal = 'SIGTERM') => void (hasExited || child.kill(signal)),
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = `${stdout}\n${stderr}`.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) finish(() => resolve(line));
          else if (hasExited)
            finish(() => reject(new Error(`dotplan ${args.join(' ')} exited before printing ${pattern}\nstdout:\n${stdout}\nstderr:\n${stderr}`)));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          watchers.delete(check);
          settle();
        };
        watchers.add(check);
        check();
      });
    },
  };
}

/** Polls `probe` until it returns something other than undefined/false; rejects after `timeoutMs`. */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${inspect(lastError)})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
