import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { InvalidInputError } from '../errors/errors.js';

/** A request to stop a long-running command (a worker, `llm serve`): SIGINT or SIGTERM for the real process. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/**
 * Everything a command takes from the process it runs in: where it writes (stdout for results,
 * stderr for messages), standard input, the environment, the working directory and stop requests.
 * `processIO` is the real process; the tests run `main(argv, io)` in-process with their own.
 */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** The directory relative paths resolve against: files named on the command line, `.dotplan/`, `./templates`, the config file. */
  readonly cwd: string;
  /** The environment settings are read from (DATABASE_URL, DOTPLAN_*, OPENAI_*, VISUAL/EDITOR). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: CliInput;
  /** Whether standard output is a terminal (diffs are coloured then). */
  readonly stdoutIsTTY: boolean;
  /** Calls `handler` on each stop request until the returned function is called. */
  onStop(handler: (signal: StopSignal) => void): () => void;
  /** Leaves at once with this exit code (a second stop request while a worker is stopping). */
  exit(code: number): void;
  /** Aborted when the reader of the output went away: a command that runs until stopped (the worker) stops, quietly. */
  readonly outputClosed?: AbortSignal;
}

/** Standard input. */
export interface CliInput {
  readonly isTTY: boolean;
  /** All of it, as text. */
  text(): Promise<string>;
  /** Asks a question on the terminal (only when `isTTY`) and resolves to the line typed. */
  ask(question: string): Promise<string>;
}

export const processIO: CliIO = {
  out: (text) => writeLine(process.stdout, text),
  err: (text) => writeLine(process.stderr, text),
  get outputClosed() {
    return readerGone.signal;
  },
  get cwd() {
    return process.cwd();
  },
  env: process.env,
  stdin: {
    get isTTY() {
      return process.stdin.isTTY === true;
    },
    async text() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    async ask(question) {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
  },
  get stdoutIsTTY() {
    return process.stdout.isTTY === true;
  },
  onStop(handler) {
    const onSignal = (signal: StopSignal) => handler(signal);
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
    return () => void process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  },
  exit: (code) => process.exit(code),
};

const readerGone = new AbortController();
const closedStreams = new WeakSet<NodeJS.WriteStream>();
const watchedStreams = new WeakSet<NodeJS.WriteStream>();

/**
 * A line to stdout or stderr. When the reader went away (`dotplan worker --json | head`), what is
 * written after that is dropped and `outputClosed` is aborted: like `yes | head`, the command ends
 * quietly — no EPIPE stack trace, exit 0.
 */
function writeLine(stream: NodeJS.WriteStream, text: string): void {
  if (closedStreams.has(stream)) return;
  if (!watchedStreams.has(stream)) {
    watchedStreams.add(stream);
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      closedStreams.add(stream);
      readerGone.abort();
    });
  }
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Reads a file (relative to the command's working directory), or standard input for `-`, with an error naming the path. */
export async function readInput(io: Pick<CliIO, 'cwd' | 'stdin'>, path: string): Promise<string> {
  if (path === '-') return io.stdin.text();
  try {
    return await readFile(resolve(io.cwd, path), 'utf8');
  } catch (error) {
    throw new InvalidInputError(`cannot read ${path}: ${describeFsError(error)}`, { cause: error });
  }
}

/** Writes a file (relative to the command's working directory), with an error naming the path. */
export async function writeOutput(io: Pick<CliIO, 'cwd'>, path: string, text: string): Promise<void> {
  try {
    await writeFile(resolve(io.cwd, path), text);
  } catch (error) {
    throw new InvalidInputError(`cannot write ${path}: ${describeFsError(error)}`, { cause: error });
  }
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES') return 'permission denied';
  return (error as Error).message;
}

export function printJson(io: CliIO, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/** Aligned text columns for list commands. */
export function formatTable(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
}
