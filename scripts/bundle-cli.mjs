#!/usr/bin/env node
// The CLI's bundle (`npm run build`, after tsc): dist/cli/main.js and the scripts the CLI starts as
// threads or processes of their own, bundled by rolldown into dist/bundle/ with the pure-JavaScript
// packages every command loads (zod, commander, the DOT parser …). Node then reads a few files where it
// read some 260 (each resolved, stat'ed, read and compiled apart): `dotplan plan list` takes about
// 0.7 of the time it took from dist/cli/main.js. Every other package stays an import of node_modules (native code, files found
// beside their own modules, code a command loads only when it runs). The library (dist/index.js) is
// not bundled. Chunks sit beside the entries, so a module's `new URL('./x.js', import.meta.url)` finds
// the entry `x.js` from either layout. `modules.json` names the modules in each file of the bundle (paths
// from the package root), for tests of what a command loads.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = `${ROOT}dist/bundle`;

/** Packages bundled into the CLI: pure JavaScript, loaded by most commands, nothing read from beside their files. */
const BUNDLED = ['zod', 'commander', 'ts-graphviz', '@ts-graphviz/', 'shell-quote'];

/** A bare import (a package, not a relative path or a node: builtin) that is not BUNDLED stays external. */
function external(id) {
  if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
  if (id.startsWith('node:')) return true;
  return !BUNDLED.some((name) => (name.endsWith('/') ? id.startsWith(name) : id === name || id.startsWith(`${name}/`)));
}

await rm(OUT, { recursive: true, force: true });
const { output } = await build({
  input: {
    main: `${ROOT}dist/cli/main.js`,
    'lease-thread': `${ROOT}dist/worker/lease-thread.js`,
    'validate-probe': `${ROOT}dist/bench/scenarios/validate-probe.js`,
  },
  platform: 'node',
  external,
  logLevel: 'warn',
  output: { dir: OUT, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', sourcemap: false },
});
const modules = Object.fromEntries(
  output
    .filter((file) => file.type === 'chunk')
    .map((chunk) => [chunk.fileName, chunk.moduleIds.filter((id) => !id.startsWith('\0')).map((id) => path.relative(ROOT, id))]),
);
await writeFile(`${OUT}/modules.json`, `${JSON.stringify(modules, null, 1)}\n`);
