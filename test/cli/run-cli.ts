import { cleanEnv, runDotplan, type RunResult } from '../support/cli.js';

/** Runs the built `dotplan` command as a user would: a subprocess, optional standard input, no dotplan variables from this environment. */
export function runCli(args: string[], options: { cwd?: string; input?: string } = {}): Promise<RunResult> {
  return runDotplan(args, { ...options, env: cleanEnv() });
}
