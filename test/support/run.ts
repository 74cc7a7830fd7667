/** What the two ways of running `dotplan` in a test (in-process and subprocess) share: options, results, a running command. */
import type { StopSignal } from '../../src/cli/io.js';

export interface RunOptions {
  cwd?: string;
  /** The command's whole environment (not merged with this process's); default `cleanEnv()`. */
  env?: NodeJS.ProcessEnv;
  /** Standard input; default: empty (and not a terminal). */
  input?: string;
  /** Stop the command after this long (a subprocess is killed); default 60 s. */
  timeoutMs?: number;
}

export interface RunResult {
  code: number | null;
  /** The signal that killed a subprocess; always null in-process. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall-clock time from start to exit. */
  elapsedMs: number;
}

/** A long-running command (a worker, `llm serve`) the test reads, stops and waits for. */
export interface DotplanRun {
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when a line of stdout or stderr matches (rejects after `timeoutMs` or if the command ends first). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves once the command has ended (never rejects). */
  readonly exited: Promise<RunResult>;
  /** Asks the command to stop, as SIGTERM (default) or SIGINT asks the real process. */
  stop(signal?: StopSignal): void;
  hasExited(): boolean;
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
