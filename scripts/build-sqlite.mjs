// Builds better-sqlite3's native module for this checkout: run by `npm ci` (the `prepare` script, beside the
// TypeScript build) and by `npm run build:sqlite [-- --force]`. package.json's `allowScripts` keeps npm (11 and
// later) from running better-sqlite3's own install script, which would do the same with the package's own
// settings: its prebuilt binaries come from GitHub, which many networks do not reach (these machines among them),
// so it compiles SQLite from source — one 9 MB file at -O3, with extensions dotplan does not use — before the
// TypeScript build may start. Here it is built beside that build, and:
// - a module that is there and loads is kept (npm 10, which ignores `allowScripts`, built it; or a run before);
// - else the package's prebuilt binary, where GitHub answers (`prebuild-install`, as its install script does);
// - else node-gyp, with SQLite compiled at -O2 and without full-text search (FTS3/4/5), R*Tree and Geopoly (the
//   C++ binding keeps -O3): sqlite3.c took 51.6 s at -O3 with those extensions and 26.0 s at -O2 without (gcc 12,
//   a 2-core AMD EPYC), and a chain step's SQLite transaction took 2% longer, within the noise (README, "Quick start").
// A CFLAGS of your own comes after these, so it wins.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const dir = path.dirname(require.resolve('better-sqlite3/package.json'));
const binary = path.join(dir, 'build', 'Release', 'better_sqlite3.node');
const SQLITE_CFLAGS = ['-O2', ...['FTS3', 'FTS4', 'FTS5', 'RTREE', 'GEOPOLY'].map((ext) => `-USQLITE_ENABLE_${ext}`)];
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

function loads() {
  if (!existsSync(binary)) return false;
  try {
    require(binary);
    return true;
  } catch {
    return false; // built for another Node (NODE_MODULE_VERSION), or broken: built again
  }
}

/** Runs a command in better-sqlite3's folder; its output is kept, to be shown if the build fails. */
function run(command, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: dir, env });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ ok: false, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ ok: code === 0, output }));
  });
}

/** npm's own node-gyp (`npm run` sets npm_config_node_gyp), else the one of the npm that runs this or came with this Node. */
function nodeGyp() {
  if (process.env.npm_config_node_gyp && existsSync(process.env.npm_config_node_gyp)) return process.env.npm_config_node_gyp;
  const npmBesideNode = path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'package.json');
  for (const base of [process.env.npm_execpath, npmBesideNode, import.meta.url]) {
    try {
      if (base) return createRequire(base).resolve('node-gyp/bin/node-gyp.js');
    } catch {
      // not there: the next place
    }
  }
  return undefined;
}

async function build() {
  if (!process.argv.includes('--force') && loads()) return;
  if (process.env.npm_lifecycle_event === undefined) throw new Error('run `npm run build:sqlite`: npm hands node-gyp its configuration');
  const started = Date.now();
  if ((await run(process.execPath, [require.resolve('prebuild-install/bin.js')])).ok && loads()) {
    console.log(`better-sqlite3: its prebuilt binary (${seconds(started)})`);
    return;
  }
  const gyp = nodeGyp();
  if (!gyp) throw new Error('node-gyp was not found (it comes with npm)');
  console.log(`better-sqlite3: compiling SQLite from source (${SQLITE_CFLAGS.join(' ')}); a C compiler, make and Python 3 are needed`);
  const env = { ...process.env, CFLAGS: [...SQLITE_CFLAGS, process.env.CFLAGS ?? ''].join(' ').trim() };
  const rebuilt = await run(process.execPath, [gyp, 'rebuild', '--release'], env);
  if (!rebuilt.ok || !loads()) {
    console.error(rebuilt.output);
    throw new Error('the build failed (its output above); dotplan cannot open a SQLite database without it');
  }
  console.log(`better-sqlite3: built in ${seconds(started)}`);
}

build().catch((error) => {
  console.error(`better-sqlite3: ${error.message}`);
  process.exitCode = 1;
});
