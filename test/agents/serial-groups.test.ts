/**
 * Serial task groups (seed 002 §2.2): `subgraph cluster_x { parallel=false … }` runs its nodes one
 * after another in declaration order (implicit edges, stored, never written into the text, drawn
 * dashed); `parallel=true` (the default) runs them side by side. A bad `parallel`, or an explicit edge
 * against the order, is refused naming the group and the line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import { validateDot } from '../../src/validate/index.js';
import type { Tool } from '../../src/tools/types.js';
import { toVizGraph } from '../../src/render/viz-graph.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

const tools = { has: (code: string) => ['echo', 'step'].includes(code), list: () => [{ code: 'echo' }, { code: 'step' }] };

/** Records when each node ran; nodes of the `together` group wait (up to 5 s) until all three have started. */
function stepTool(): { tool: Tool; runs: Array<{ node: string; start: number; end: number }> } {
  const runs: Array<{ node: string; start: number; end: number }> = [];
  const started = new Set<string>();
  const tool: Tool = {
    code: 'step',
    run: async (_input, ctx) => {
      const start = performance.now();
      started.add(ctx.nodeId);
      if (ctx.nodeId.startsWith('t')) {
        const until = Date.now() + 5_000;
        while (['t1', 't2', 't3'].some((id) => !started.has(id)) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      } else await new Promise((r) => setTimeout(r, 30));
      runs.push({ node: ctx.nodeId, start, end: performance.now() });
      return ctx.nodeId;
    },
  };
  return { tool, runs };
}

describe('serial task groups', () => {
  let h: TreeHarness | undefined;
  afterEach(async () => h?.cleanup());

  it('refuses a parallel value other than true/false, and an edge against the order, naming the group and the line', () => {
    const bad = validateDot(`digraph g {\n  subgraph cluster_a { parallel=maybe\n    x [type=function toolCode=echo] }\n}`, { tools });
    expect(bad.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'GROUP_PARALLEL_INVALID', line: 2, message: 'parallel of group "cluster_a" is "maybe"' }),
    );
    const against = validateDot(
      `digraph g {\n  subgraph cluster_s { parallel=false\n    a [type=function toolCode=echo]\n    b [type=function toolCode=echo] }\n  b -> a\n}`,
      { tools },
    );
    expect(against.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'GROUP_ORDER_CONFLICT',
        line: 5,
        message: expect.stringContaining('edge b -> a runs against the order of serial group "cluster_s"'),
      }),
    );
    // The implicit edges take part in the checks, are in the validated graph, and are not written back as text.
    const ok = validateDot(
      `digraph g { subgraph cluster_s { parallel=false a [type=function toolCode=echo] b [type=function toolCode=echo] c [type=function toolCode=echo] } }`,
      { tools },
    );
    expect(ok.valid).toBe(true);
    expect(ok.graph!.edges.map((e) => `${e.from}->${e.to}`)).toEqual(['a->b', 'b->c']);
    expect(writeDot(ok.graph!)).not.toContain('->');
    const drawn = toVizGraph(
      readDot(`digraph g { subgraph cluster_s { parallel=false a [type=function toolCode=echo] b [type=function toolCode=echo] } }`),
      {},
    );
    expect(drawn.edges).toEqual([expect.objectContaining({ tail: 'a', head: 'b', attributes: expect.objectContaining({ style: 'dashed' }) })]);
    // An agent node is drawn with a double border.
    const agent = toVizGraph(readDot(`digraph g { s [type=agent agentCode=x task=t] }`), { legend: false });
    expect(agent.nodes).toEqual([expect.objectContaining({ name: 's', attributes: expect.objectContaining({ peripheries: 2 }) })]);
  });

  it('a serial group runs one node after another, a parallel group side by side (a worker with 4 slots)', async () => {
    const step = stepTool();
    h = await openTreeHarness({ agents: [], tools: [step.tool] });
    const root = await h.create(`digraph g {
      subgraph cluster_serial { parallel=false s1 [type=function toolCode=step] s2 [type=function toolCode=step] s3 [type=function toolCode=step] }
      subgraph cluster_together { parallel=true t1 [type=function toolCode=step] t2 [type=function toolCode=step] t3 [type=function toolCode=step] }
    }`);
    await h.runUntilIdle({ concurrency: 4 });
    expect((await h.store.plans.get(root)).status).toBe('completed');
    const at = new Map(step.runs.map((r) => [r.node, r]));
    expect(at.get('s2')!.start).toBeGreaterThanOrEqual(at.get('s1')!.end);
    expect(at.get('s3')!.start).toBeGreaterThanOrEqual(at.get('s2')!.end);
    // The parallel group's three were all running at once (each waited for the other two to start).
    const together = ['t1', 't2', 't3'].map((id) => at.get(id)!);
    expect(Math.max(...together.map((r) => r.start))).toBeLessThan(Math.min(...together.map((r) => r.end)));
    expect(await h.store.plans.edges(root)).toEqual([
      { from: 's1', to: 's2' },
      { from: 's2', to: 's3' },
    ]);
    expect((await h.store.plans.revision(root)).dot).not.toContain('->');
  });
});
