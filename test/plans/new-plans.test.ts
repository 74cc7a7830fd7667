/**
 * What a new plan starts with (pure, no database): history reset whatever the source (a DOT text, a
 * template file), and the plan `plan rerun` makes of a stored one, from the start or from a node on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDot } from '../../src/dot/index.js';
import type { NodeStatus } from '../../src/model/types.js';
import { preparePlan } from '../../src/plans/prepare-plan.js';
import { rerunGraph } from '../../src/plans/rerun-graph.js';
import { createRegistry } from '../../src/tools/registry.js';

const dir = mkdtempSync(join(tmpdir(), 'dotplan-new-plans-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a new plan starts without history', () => {
  it('from a template file: a done node starts pending, its output left out, both named in warnings', async () => {
    const path = join(dir, 'copied.dot');
    writeFileSync(path, 'digraph copied {\n  params="who=Ada"\n  a [type=function toolCode=echo toolInput="{{params.who}}" status=done toolOutput="old"]\n}\n');
    const prepared = await preparePlan(await createRegistry(), { template: path });
    expect(prepared.graph.nodes[0]!.attributes).toMatchObject({ status: 'pending' });
    expect(prepared.graph.nodes[0]!.attributes.toolOutput).toBeUndefined();
    expect(prepared.dot).not.toMatch(/done|toolOutput/);
    expect(prepared.warnings.map((w) => [w.code, w.node, w.attribute, w.line])).toEqual([
      ['HISTORY_RESET', 'a', 'status', 3],
      ['HISTORY_RESET', 'a', 'toolOutput', 3],
    ]);
  });

  it('keeps pending, ready, skipped and awaiting_input (with its question), with no warning', async () => {
    const dot = `digraph kept {
      a [type=function toolCode=echo status=pending]
      b [type=function toolCode=echo status=ready]
      c [type=function toolCode=echo status=skipped]
      d [type=confirm question="ok?" status=awaiting_input]
    }`;
    const prepared = await preparePlan(await createRegistry(), { dot });
    expect(prepared.graph.nodes.map((n) => n.attributes.status)).toEqual(['pending', 'ready', 'skipped', 'awaiting_input']);
    expect(prepared.warnings).toEqual([]);
    expect(prepared.dot).toBe(dot); // the text as written
  });

  it('holds an edge at create: a node written ready or awaiting_input behind an unfinished parent starts pending (behind a skipped one it stays)', async () => {
    const dot = `digraph early {
      d [type=function toolCode=echo]
      e [type=function toolCode=echo status=ready]
      q [type=confirm question="pay?" status=awaiting_input]
      s [type=function toolCode=echo status=skipped]
      t [type=function toolCode=echo status=ready]
      d -> e
      d -> q
      s -> t
    }`;
    const prepared = await preparePlan(await createRegistry(), { dot });
    expect(Object.fromEntries(prepared.graph.nodes.map((n) => [n.id, n.attributes.status]))).toEqual({
      d: 'pending',
      e: 'pending',
      q: 'pending',
      s: 'skipped',
      t: 'ready',
    });
    expect(prepared.warnings.map((w) => [w.code, w.node, w.attribute, w.line])).toEqual([
      ['HISTORY_RESET', 'e', 'status', 3],
      ['HISTORY_RESET', 'q', 'status', 4],
    ]);
    expect(prepared.warnings[0]!.message).toContain('"d"');
  });
});

describe('the plan plan rerun makes', () => {
  // a -> b -> c, a -> x; y alone; j joins b and y.
  const revision = readDot(`digraph old {
    node [type=function toolCode=echo]
    a [status=ready] b [status=pending] c x y j
    a -> b -> c
    a -> x
    b -> j
    y -> j
  }`);
  const old = (statuses: Record<string, NodeStatus>) =>
    Object.entries(statuses).map(([id, status]) => ({ id, status, ...(status === 'done' ? { output: `out ${id}` } : {}) }));
  const all = old({ a: 'done', b: 'done', c: 'done', x: 'done', y: 'failed', j: 'done' });

  it('without a node to start from: every node pending, no live field left', () => {
    const { graph, carried } = rerunGraph(revision, all);
    expect(carried).toEqual([]);
    expect(graph.nodes.map((n) => n.attributes)).toEqual(graph.nodes.map(() => ({ type: 'function', toolCode: 'echo', status: 'pending' })));
  });

  it('from a node: it, what did not finish done and all that follows them run again; the other done nodes keep their results', () => {
    const { graph, carried } = rerunGraph(revision, all, 'b');
    expect(carried).toEqual(['a', 'x']);
    const status = Object.fromEntries(graph.nodes.map((n) => [n.id, n.attributes.status]));
    expect(status).toEqual({ a: 'done', b: 'pending', c: 'pending', x: 'done', y: 'pending', j: 'pending' });
    expect(graph.nodes.find((n) => n.id === 'a')!.attributes.toolOutput).toBe('out a');
  });
});
