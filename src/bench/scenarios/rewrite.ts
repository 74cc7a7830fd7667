import { defaultConfig } from '../../config/defaults.js';
import { cancel } from '../../engine/index.js';
import { parseReply, writeReply } from '../../llm/reply.js';
import { nothingToRun } from '../../llm/reply-rules.js';
import { applyRevision } from '../../operations/apply-revision.js';
import { preparePlan } from '../../plans/prepare-plan.js';
import type { Store } from '../../store/types.js';
import type { ToolCatalogue } from '../../tools/types.js';
import type { BenchBackend, BenchResult } from '../results.js';

/**
 * Applying an LLM rewrite of a large reflection plan, the model's time excluded: the reply is
 * parsed, its plan read and validated, merged, diffed, checked against the LLM's rights and written
 * as a revision — the path of every rewrite. The plan is a chain of `nodes` nodes (the first ready,
 * the rest pending); each round's reply gives every tenth pending node a new input (the LLM may
 * change pending nodes), so every round really changes 10 % of the plan. Median of the rounds, in ms.
 */
export function rewritePlanText(nodes: number, variant: number): string {
  const lines = ['digraph rewrite {', '  mode="reflection"', '  goal="Benchmark a rewrite"'];
  for (let i = 0; i < nodes; i++) {
    const input = i % 10 === 5 ? `input ${i} v${variant}` : `input ${i}`;
    lines.push(`  n${i} [type=function, toolCode=echo, toolInput="${input}", status="${i === 0 ? 'ready' : 'pending'}"]`);
  }
  for (let i = 1; i < nodes; i++) lines.push(`  n${i - 1} -> n${i}`);
  lines.push('}');
  return lines.join('\n');
}

export async function measureRewrite(backend: BenchBackend, store: Store, tools: ToolCatalogue, nodes: number, rounds = 7): Promise<BenchResult> {
  const config = defaultConfig();
  const { id } = await store.plans.create(await preparePlan(tools, { dot: rewritePlanText(nodes, 0), source: 'rewrite bench', title: 'rewrite bench' }));
  const times: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const reply = writeReply({ id, updateLog: `round ${round}`, dot: rewritePlanText(nodes, round) });
    const { revision, asOfEvent } = await store.plans.editable(id);
    const started = performance.now();
    const parsed = parseReply(reply);
    const report = await applyRevision({ store, tools, config }, id, parsed.dot, {
      by: { driver: 'llm', name: 'bench' },
      source: 'the reply',
      base: { revision: revision.number, asOfEvent },
      reason: parsed.updateLog,
      check: nothingToRun,
    });
    times.push(performance.now() - started);
    if (!report.applied || report.changes.length !== Math.floor((nodes + 4) / 10)) {
      throw new Error(`the rewrite benchmark's reply was not applied as expected: ${JSON.stringify(report).slice(0, 300)}`);
    }
  }
  // Nothing of it is left for the scenarios after this one to claim.
  await store.plans.change(id, { all: true }, (snapshot) => cancel(snapshot, { driver: 'operator', name: 'bench' }, 'the rewrite benchmark is over'));
  times.sort((a, b) => a - b);
  return { backend, scenario: 'rewrite', value: Math.round(times[Math.floor(times.length / 2)]! * 10) / 10, unit: 'ms' };
}
