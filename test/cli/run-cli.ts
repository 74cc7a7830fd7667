import { cleanEnv, runDotplan, runDotplanProcess, type InProcessOptions, type RunResult } from '../support/cli.js';

type CliOptions = Pick<InProcessOptions, 'cwd' | 'input' | 'answers'>;

/** Runs `dotplan` in-process as a user would run it: optional standard input, no dotplan variables from this environment. */
export function runCli(args: string[], options: CliOptions = {}): Promise<RunResult> {
  return runDotplan(args, { ...options, env: cleanEnv() });
}

/** The same as a subprocess of the built `bin/dotplan.js`: for what only a real process shows (exit codes of the bin, signals). */
export function runCliProcess(args: string[], options: Omit<CliOptions, 'answers'> = {}): Promise<RunResult> {
  return runDotplanProcess(args, { ...options, env: cleanEnv() });
}
