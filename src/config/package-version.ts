import { readFileSync } from 'node:fs';
import { packagePath } from './package-path.js';

let version: string | undefined;

/** dotplan's version, from its package.json; read once. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
  return version;
}
