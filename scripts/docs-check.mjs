// `npm run docs:check`: the API reference committed in docs/api/ is what TypeDoc makes of the TSDoc
// now, and TypeDoc has nothing to warn about (typedoc.json treats warnings as errors: an undocumented
// export, a link that goes nowhere, a type the reference uses but does not include).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const committed = join(root, 'docs', 'api');
const fresh = mkdtempSync(join(tmpdir(), 'dotplan-api-docs-'));

/** Every file under `dir`, as paths relative to it. */
function files(dir) {
  const out = [];
  const walk = (at) => {
    let entries;
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

try {
  try {
    execFileSync(process.execPath, [join(root, 'node_modules', 'typedoc', 'bin', 'typedoc'), '--out', fresh], { cwd: root, stdio: 'inherit' });
  } catch {
    console.error('docs:check: TypeDoc failed or warned (see above); fix the TSDoc, then run `npm run docs`');
    process.exit(1);
  }
  const before = new Set(files(committed));
  const after = files(fresh);
  const stale = [
    ...after.filter((file) => !before.has(file)).map((file) => `missing: docs/api/${file}`),
    ...[...before].filter((file) => !after.includes(file)).map((file) => `no longer made: docs/api/${file}`),
    ...after
      .filter((file) => before.has(file) && readFileSync(join(committed, file), 'utf8') !== readFileSync(join(fresh, file), 'utf8'))
      .map((file) => `out of date: docs/api/${file}`),
  ];
  if (stale.length > 0) {
    console.error(`docs:check: the committed API reference is stale:\n  ${stale.join('\n  ')}\nRun \`npm run docs\` and commit docs/api/.`);
    process.exit(1);
  }
  console.log(`docs:check: docs/api/ is current (${after.length} files)`);
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
