/**
 * The `dotplan` command run in this process: `main(argv, io)` with an `io` that is the test's —
 * its own working directory, environment, standard input and stop requests — so a command costs
 * what its work costs, not a Node process (over a second of CPU each). Same result shape as the
 * subprocess runner; use that one where the process itself is the point (signals, crashes, several
 * workers at once, the package's bin).
 */
import { main } from '../../src/cli/main.js';
import type { CliIO, StopSignal } from '../../src/cli/io.js';
import { Output } from './output.js';
import { cleanEnv, type DotplanRun, type RunOptions, type RunResult } from './run.js';

export interface InProcessOptions extends RunOptions {
  /** Standard input is a terminal on which a person types these lines, one per question asked. */
  answers?: string[];
}

/** Runs `dotplan <args>` in-process to the end. */
export function runInProcess(args: readonly string[], options: InProcessOptions = {}): Promise<RunResult> {
  return startInProcess(args, options).exited;
}

/** Starts `dotplan <args>` in-process and returns at once (a worker, `llm serve`): read its output, stop it, wait for its end. */
export function startInProcess(args: readonly string[], options: InProcessOptions = {}): DotplanRun {
  const started = Date.now();
  const what = `dotplan ${args.join(' ')} (in-process)`;
  const output = new Output(what);
  const stopHandlers = new Set<(signal: StopSignal) => void>();
  const answers = [...(options.answers ?? [])];
  let result: RunResult | undefined;
  let settle!: (result: RunResult) => void;
  const exited = new Promise<RunResult>((resolve) => (settle = resolve));
  const end = (code: number | null, why: string) => {
    if (result) return;
    result = { code, signal: null, stdout: output.stdout, stderr: output.stderr, elapsedMs: Date.now() - started };
    clearTimeout(deadline);
    output.end(why);
    settle(result);
  };
  const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  const io: CliIO = {
    out: (text) => output.write('stdout', line(text)),
    err: (text) => output.write('stderr', line(text)),
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? cleanEnv(),
    stdin: {
      isTTY: options.answers !== undefined,
      text: () => Promise.resolve(options.input ?? ''),
      ask(question) {
        output.write('stderr', question);
        const answer = answers.shift();
        if (answer === undefined) return Promise.reject(new Error(`${what}: asked "${question}" with no answer left`));
        output.write('stderr', `${answer}\n`);
        return Promise.resolve(answer);
      },
    },
    stdoutIsTTY: false,
    onStop(handler) {
      stopHandlers.add(handler);
      return () => void stopHandlers.delete(handler);
    },
    exit: (code) => end(code, `left with exit code ${code}`),
  };
  const stop = (signal: StopSignal = 'SIGTERM') => {
    if (!result) for (const handler of [...stopHandlers]) handler(signal);
  };
  // A command that outlives its deadline is asked to stop, as a subprocess would be killed.
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = setTimeout(() => {
    output.write('stderr', `(test runner: ${what} still running after ${timeoutMs} ms: stopping it)\n`);
    stop('SIGTERM');
  }, timeoutMs);
  main([...args], io).then(
    (code) => end(code, `exited ${code}`),
    (error: unknown) => {
      output.write('stderr', `(test runner: main() threw) ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      end(null, 'threw');
    },
  );
  return {
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    waitForOutput: (pattern, ms) => output.waitFor(pattern, ms),
    exited,
    stop,
    hasExited: () => result !== undefined,
  };
}
