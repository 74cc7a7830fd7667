import { readFileSync } from 'node:fs';

let version: string | undefined;

/** dotplan's version, from its package.json (the same path from src/config and dist/config); read once. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
