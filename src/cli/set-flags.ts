import { InvalidArgumentError, Option } from 'commander';
import { InvalidInputError } from '../errors/errors.js';

const KEY = /^[A-Za-z_][\w-]*$/;

/** `--set` flags as template values: `["topic=AI", "audience=kids"]` → `{ topic: "AI", audience: "kids" }`; the value may contain `=`. */
export function parseSetFlags(entries: readonly string[]): Record<string, string> {
  const out = new Map<string, string>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const key = eq < 0 ? '' : entry.slice(0, eq).trim();
    if (eq < 0 || !KEY.test(key)) {
      throw new InvalidInputError(`--set expects key=value (a parameter name, "=", then the value), got ${JSON.stringify(entry)}`);
    }
    if (out.has(key)) throw new InvalidInputError(`--set ${key} is given twice`);
    out.set(key, entry.slice(eq + 1));
  }
  return Object.fromEntries(out);
}

/**
 * `--set key=value`, repeatable: each value is checked as it is read (by `parseSetFlags`, the one
 * reader of these flags), so a malformed or repeated one is a usage error (exit 2).
 */
export function setOption(): Option {
  return new Option('--set <key=value>', 'template parameter (repeatable)').argParser((value: string, previous: string[] = []) => {
    const entries = [...previous, value];
    try {
      parseSetFlags(entries);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
    return entries;
  });
}
