/**
 * Commands cascade down the plan stack: cancelling a root cancels every descendant in one
 * transaction (no node of a descendant starts after the cancel event); pause and resume cascade, and
 * resume un-pauses only what the pause cascaded to; an operator cancelling a child fails its parent
 * node, naming who did it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cancelTree, pauseTree, resumeTree } from '../../src/operations/cascade.js';
import type { Tool } from '../../src/tools/types.js';
import { waitUntil } from '../support/wait.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

/** A tool that holds its node running until the test opens the gate (or the attempt is aborted). */
function gate(): { tool: Tool; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const tool: Tool = {
    code: 'gate',
    run: async (input: unknown, ctx) => {
      await Promise.race([opened, new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }))]);
      return `passed ${String(input)}`;
    },
  };
  return { tool, open };
}

const TEMPLATES = {
  mid: `digraph mid { deeper [type=agent agentCode=leaf task="go deeper"] after [type=function toolCode=echo toolInput="mid done"] deeper -> after }`,
  leaf: `digraph leaf { hold [type=function toolCode=gate toolInput="leaf"] next [type=function toolCode=echo toolInput="leaf next"] hold -> next }`,
};
const AGENTS = [
  { code: 'mid', kind: 'workflow', template: 'mid', agents: ['leaf'] },
  { code: 'leaf', kind: 'workflow', template: 'leaf' },
];
const ROOT = `digraph root { top [type=agent agentCode=mid task="start"] tail [type=function toolCode=echo toolInput="root done"] top -> tail }`;
const ADA = { driver: 'operator' as const, name: 'ada' };

describe('cascading commands', () => {
  let h: TreeHarness;
  afterEach(async () => h?.cleanup());

  async function threeLevels(): Promise<{ root: string; mid: string; leaf: string; open: () => void; stop: () => Promise<void> }> {
    const g = gate();
    h = await openTreeHarness({ agents: AGENTS, templates: TEMPLATES, tools: [g.tool] });
    const root = await h.create(ROOT);
    const worker = h.worker({ concurrency: 4 });
    worker.start();
    const leaf = await waitUntil(async () => {
      const plans = await h.store.plans.list();
      const found = plans.find((p) => p.depth === 2);
      return found && (await h.store.plans.node(found.id, 'hold')).status === 'running' ? found.id : undefined;
    }, 'the leaf plan to run its gate');
    const mid = (await h.store.plans.get(leaf)).parent!.planId;
    return { root, mid, leaf, open: g.open, stop: () => worker.stop() };
  }

  it('cancelling the root of a three-level tree cancels every descendant; no node of one starts after the cancel event', async () => {
    const t = await threeLevels();
    await cancelTree(h.store, t.root, ADA, 'not needed any more');
    t.open();
    await t.stop();
    for (const id of [t.root, t.mid, t.leaf]) expect((await h.store.plans.get(id)).status).toBe('cancelled');
    expect((await h.store.plans.node(t.leaf, 'hold')).status).toBe('cancelled');
    expect((await h.store.plans.node(t.leaf, 'next')).status).toBe('cancelled');
    expect((await h.store.plans.node(t.mid, 'after')).status).toBe('cancelled');
    const cancelEvent = (await h.store.events.list(t.root)).find((e) => e.nodeId === undefined && e.to === 'cancelled')!;
    for (const id of [t.mid, t.leaf]) {
      const later = (await h.store.events.list(id, { after: cancelEvent.id })).filter((e) => e.kind === 'status' && (e.to === 'running' || e.to === 'done'));
      expect(later).toEqual([]);
    }
  });

  it('pause and resume cascade; resume un-pauses only what the pause cascaded to', async () => {
    const t = await threeLevels();
    await pauseTree(h.store, t.root, ADA, 'for the night');
    for (const id of [t.root, t.mid, t.leaf]) expect((await h.store.plans.get(id)).status).toBe('paused');
    await resumeTree(h.store, t.root, ADA, 'morning');
    for (const id of [t.root, t.mid, t.leaf]) expect((await h.store.plans.get(id)).status).toBe('running');
    // A child paused by hand stays paused when its root pauses and resumes.
    await pauseTree(h.store, t.leaf, ADA, 'hold the leaf');
    await pauseTree(h.store, t.root, ADA, 'again');
    await resumeTree(h.store, t.root, ADA, 'again');
    expect((await h.store.plans.get(t.mid)).status).toBe('running');
    expect((await h.store.plans.get(t.leaf)).status).toBe('paused');
    await resumeTree(h.store, t.leaf, ADA, 'go on');
    t.open();
    await waitUntil(async () => (await h.store.plans.get(t.root)).status === 'completed' || undefined, 'the tree to complete');
    await t.stop();
    expect((await h.store.plans.node(t.root, 'tail')).output).toBe('root done');
  });

  it('an operator cancelling a child fails its parent node, naming the operator', async () => {
    const t = await threeLevels();
    await cancelTree(h.store, t.leaf, ADA, 'wrong direction');
    await waitUntil(async () => (await h.store.plans.get(t.root)).status === 'failed' || undefined, 'the root to fail');
    t.open();
    await t.stop();
    const deeper = await h.store.plans.node(t.mid, 'deeper');
    expect(deeper.status).toBe('failed');
    expect(deeper.error).toBe(`child plan ${t.leaf} (leaf_001) was cancelled by ada: wrong direction`);
    expect((await h.store.plans.get(t.mid)).status).toBe('failed');
    expect((await h.store.plans.node(t.root, 'top')).error).toContain(`child plan ${t.mid} (mid_001) failed`);
  });
});
