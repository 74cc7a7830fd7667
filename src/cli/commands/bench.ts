import type { Command } from 'commander';
import { UsageError } from '../../errors/errors.js';
import { benchDotplan } from '../../bench/dotplan.js';
import { renderBench, runBench } from '../../bench/run.js';
import { DEFAULT_HTTP_SIZES, httpBench } from '../../bench/scenarios/http.js';
import type { GetContext } from './index.js';

/** `dotplan bench`: throughput, chain latency and idle poll on SQLite and PostgreSQL, with graphile-worker as the anchor; the HTTP API against a bare Hono route. */
export function registerBenchCommand(program: Command, getContext: GetContext): void {
  program
    .command('bench')
    .description(
      'measure throughput, chain steps, agent steps, a tree cancel, a wide join, validation, idle polls and the HTTP API on SQLite and (with --db/DATABASE_URL postgres://) PostgreSQL, in rounds interleaved with graphile-worker, against the floor',
    )
    .option('--json', 'print {"results":[{"backend","scenario","value","unit","anchor"?,"ratio"?,"floor"?,"floorRatio"?,"rounds"}]} (value: the median)')
    .option('--rounds <n>', 'rounds; dotplan and graphile-worker run in each, interleaved', '3')
    .option('--only <group>', 'run only this group of scenarios: http (the HTTP API and its floor)')
    .option('--nodes <n>', 'nodes in the throughput run', '10000')
    .option('--chain <n>', 'steps in the chain run', '500')
    .option('--plans <n>', 'stored plans behind the idle poll', '10000')
    .option('--tree <n>', 'plans in the tree the tree-cancel run cancels', '1000')
    .option('--http-nodes <n>', 'nodes of the plan GET /v1/plans/{id} reads', String(DEFAULT_HTTP_SIZES.nodes))
    .option('--http-plans <n>', 'plans in the database GET /v1/plans?limit=100 lists', String(DEFAULT_HTTP_SIZES.plans))
    .option('--http-requests <n>', 'requests in each HTTP load phase at least', String(DEFAULT_HTTP_SIZES.requests))
    .option('--http-ms <n>', 'milliseconds each HTTP load phase lasts at least', String(DEFAULT_HTTP_SIZES.minMs))
    .option('--http-commits <n>', 'commits timed to the SSE client', String(DEFAULT_HTTP_SIZES.commits))
    .action(async (opts: BenchOptions, command: Command) => {
      if (opts.only !== undefined && opts.only !== 'http') throw new UsageError(`--only "${opts.only}": the one group is http`);
      for (const [flag, value] of Object.entries({
        '--rounds': opts.rounds,
        '--nodes': opts.nodes,
        '--chain': opts.chain,
        '--plans': opts.plans,
        '--tree': opts.tree,
        '--http-nodes': opts.httpNodes,
        '--http-plans': opts.httpPlans,
        '--http-requests': opts.httpRequests,
        '--http-commits': opts.httpCommits,
        '--http-ms': opts.httpMs,
      })) {
        if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`${flag} "${value}": must be a whole number of at least 1`);
      }
      const ctx = await getContext(command);
      const http = httpBench({
        nodes: Number(opts.httpNodes),
        plans: Number(opts.httpPlans),
        requests: Number(opts.httpRequests),
        commits: Number(opts.httpCommits),
        minMs: Number(opts.httpMs),
      });
      const report = await runBench({
        ...(ctx.config.databaseUrl !== undefined ? { postgresUrl: ctx.config.databaseUrl } : {}),
        sizes: { nodes: Number(opts.nodes), chain: Number(opts.chain), plans: Number(opts.plans), tree: Number(opts.tree) },
        rounds: Number(opts.rounds),
        dotplan: benchDotplan,
        http,
        ...(opts.only === 'http' ? { only: 'http' as const } : {}),
        progress: (line) => ctx.io.err(line),
      });
      for (const warning of report.warnings) ctx.io.err(`warning: ${warning}`);
      ctx.io.out(renderBench(report, { json: opts.json === true }));
    });
}

interface BenchOptions {
  json?: boolean;
  only?: string;
  nodes: string;
  chain: string;
  plans: string;
  tree: string;
  rounds: string;
  httpNodes: string;
  httpPlans: string;
  httpRequests: string;
  httpCommits: string;
  httpMs: string;
}
