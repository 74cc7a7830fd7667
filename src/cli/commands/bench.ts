import type { Command } from 'commander';
import { UsageError } from '../../errors/errors.js';
import { benchDotplan } from '../../bench/dotplan.js';
import { renderBench, runBench } from '../../bench/run.js';
import type { GetContext } from './index.js';

/** `dotplan bench`: throughput, chain latency and idle poll on SQLite and PostgreSQL, with graphile-worker as the anchor. */
export function registerBenchCommand(program: Command, getContext: GetContext): void {
  program
    .command('bench')
    .description(
      'measure throughput, chain steps, agent steps, a tree cancel, a wide join, validation and idle polls on SQLite and (with --db/DATABASE_URL postgres://) PostgreSQL, in rounds interleaved with graphile-worker, against the floor',
    )
    .option('--json', 'print {"results":[{"backend","scenario","value","unit","anchor"?,"ratio"?,"floor"?,"floorRatio"?,"rounds"}]} (value: the median)')
    .option('--rounds <n>', 'rounds; dotplan and graphile-worker run in each, interleaved', '3')
    .option('--nodes <n>', 'nodes in the throughput run', '10000')
    .option('--chain <n>', 'steps in the chain run', '500')
    .option('--plans <n>', 'stored plans behind the idle poll', '10000')
    .option('--tree <n>', 'plans in the tree the tree-cancel run cancels', '1000')
    .action(async (opts: { json?: boolean; nodes: string; chain: string; plans: string; tree: string; rounds: string }, command: Command) => {
      for (const [flag, value] of Object.entries({
        '--rounds': opts.rounds,
        '--nodes': opts.nodes,
        '--chain': opts.chain,
        '--plans': opts.plans,
        '--tree': opts.tree,
      })) {
        if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`${flag} "${value}": must be a whole number of at least 1`);
      }
      const ctx = await getContext(command);
      const report = await runBench({
        ...(ctx.config.databaseUrl !== undefined ? { postgresUrl: ctx.config.databaseUrl } : {}),
        sizes: { nodes: Number(opts.nodes), chain: Number(opts.chain), plans: Number(opts.plans), tree: Number(opts.tree) },
        rounds: Number(opts.rounds),
        dotplan: benchDotplan,
        progress: (line) => ctx.io.err(line),
      });
      for (const warning of report.warnings) ctx.io.err(`warning: ${warning}`);
      ctx.io.out(renderBench(report, { json: opts.json === true }));
    });
}
