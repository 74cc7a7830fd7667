import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * A path inside dotplan's package (its templates, prompts, migrations, demo files, built UI …): the
 * root is the first folder up from this module that holds a package.json, the same whether the code
 * runs from src/ (tests), from dist/ (the library) or from dist/bundle/ (the CLI's bundle).
 */
export function packagePath(...parts: string[]): string {
  root ??= packageRoot(path.dirname(fileURLToPath(import.meta.url)));
  return path.join(root, ...parts);
}

function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`dotplan's package.json was not found above ${from}`);
  }
}
