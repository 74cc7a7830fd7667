import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../store/index.js';
import type { BenchResult } from '../results.js';
import { median } from '../results.js';
import { NOOP_TOOL, planInputOf } from './shapes.js';
import { packagePath } from '../../config/package-path.js';

const BIN = packagePath('bin', 'dotplan.js');

/** One process run to its end: its wall time in ms; a failed run is an error (a benchmark of an error message measures nothing). */
function wallMs(args: readonly string[]): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`cli start: \`node ${args.join(' ')}\` exited ${run.status}: ${run.stderr.trim()}`);
  return ms;
}

/**
 * How fast the CLI starts, as operators run it in loops: `dotplan --version` and `dotplan plan list`
 * on a SQLite database of `plans` plans, each timed as a whole process against `node -e 0` (Node's
 * own start), the three interleaved `runs` times; the medians' ratios to node's, in ×.
 */
export async function measureCliStart(plans: number, runs: number): Promise<BenchResult[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-bench-cli-'));
  try {
    const url = `file:${path.join(dir, 'cli.db')}`;
    const store = await openStore({ url });
    try {
      for (let i = 0; i < plans; i++) {
        const nodes = ['fetch', 'check', 'send'].map((id) => ({ id, attributes: { type: 'function', toolCode: NOOP_TOOL } }));
        await store.plans.create(
          planInputOf(`plan ${i}`, nodes, [
            { from: 'fetch', to: 'check', attributes: {} },
            { from: 'check', to: 'send', attributes: {} },
          ]),
        );
      }
    } finally {
      await store.close();
    }
    const node: number[] = [];
    const version: number[] = [];
    const list: number[] = [];
    for (let i = 0; i < runs; i++) {
      node.push(wallMs(['-e', '0']));
      version.push(wallMs([BIN, '--version']));
      list.push(wallMs([BIN, 'plan', 'list', '--db', url]));
    }
    const base = median(node);
    return [
      { backend: 'sqlite', scenario: 'cli-version', value: Math.round((median(version) / base) * 100) / 100, unit: '×' },
      { backend: 'sqlite', scenario: 'cli-plan-list', value: Math.round((median(list) / base) * 100) / 100, unit: '×' },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
