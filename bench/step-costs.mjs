#!/usr/bin/env node
// What a step costs on PostgreSQL, counted (round trips, rows, buffers, WAL bytes, index entries) on a
// private server with pg_stat_statements: `npm run build && node bench/step-costs.mjs [chain] [nodes] [agent steps] [join parents]`.
import { formatStepCosts, measureStepCosts } from '../dist/bench/step-costs.js';

const [chain = '500', nodes = '10000', agents = '200', join = nodes] = process.argv.slice(2);
console.log(formatStepCosts(await measureStepCosts({ chain: Number(chain), nodes: Number(nodes), join: Number(join), agents: Number(agents) })));
