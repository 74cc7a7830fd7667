/**
 * Running the `dotplan` command in a test. `runDotplan` / `startDotplan` run it in this process
 * (`main(argv, io)`, see in-process.ts): the default. `runDotplanProcess` / `spawnDotplan` run
 * `node bin/dotplan.js` as a subprocess (see subprocess.ts), for tests about processes. And
 * `waitUntil` (wait.ts), for waiting on what a test expects instead of sleeping.
 */
export { runInProcess as runDotplan, startInProcess as startDotplan, type InProcessOptions } from './in-process.js';
export { DOTPLAN_BIN, runDotplanProcess, spawnDotplan, type DotplanProcess } from './subprocess.js';
export { cleanEnv, type DotplanRun, type RunOptions, type RunResult } from './run.js';
export { waitUntil } from './wait.js';
