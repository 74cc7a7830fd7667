import { readFile, writeFile } from 'node:fs/promises';
import { InvalidInputError } from '../errors/errors.js';

/** Where a command writes: stdout for results, stderr for messages. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

export const processIO: CliIO = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** Reads a file, or standard input for `-`, with an error naming the path. */
export async function readInput(path: string): Promise<string> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidInputError(`cannot read ${path}: ${describeFsError(error)}`, { cause: error });
  }
}

export async function writeOutput(path: string, text: string): Promise<void> {
  try {
    await writeFile(path, text);
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
