/**
 * Exactly once: three worker processes share one database and run a 301-node plan whose every node
 * appends "<plan> <node> <attempt> <pid>" to one file. Each node's tool must have run once — 301
 * distinct lines, no node twice — and the work must really have been shared between the workers.
 * On PostgreSQL the workers hear of the plan through LISTEN/NOTIFY; on SQLite three processes share
 * one database file (a bonus: the claims are single `UPDATE … RETURNING` statements in BEGIN
 * IMMEDIATE transactions) and find the plan on their one-second poll.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/cli.js';
import { openWorkspace, workflow, json, type Workspace } from './workspace.js';

/**
 * 200 independent nodes (all ready at once: the claims race), 10 chains of 10 (readiness propagates while others
 * claim), and a node `j` joining the 200 (its count lowered by the three workers' writes at once).
 */
function recordingPlan(file: string): { dot: string; ids: string[] } {
  const roots = Array.from({ length: 200 }, (_, i) => `r${i}`);
  const chains = Array.from({ length: 10 }, (_, c) => Array.from({ length: 10 }, (_, i) => `c${c}_${i}`));
  const ids = [...roots, ...chains.flat(), 'j'];
  const dot = workflow('exactly_once', {
    nodes: ids.map((id) => `${id} [type=function toolCode=record toolInput=${json({ file })}]`),
    edges: [...chains.map((chain) => chain.join(' -> ')), ...roots.map((root) => `${root} -> j`)],
  });
  return { dot, ids };
}

describe('several workers on one database', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('three worker processes run every node of a 301-node plan exactly once, the join after all its parents', async () => {
    const file = join(ws.dir, 'ran.txt');
    const { dot, ids } = recordingPlan(file);
    expect(ids).toHaveLength(301);
    const workers = [0, 1, 2].map(() => ws.spawnProcess(['worker', '--poll', '* * * * * *', '--concurrency', '8']));
    // Each worker's banner: its process is up and has opened the database.
    await Promise.all(workers.map((w) => w.waitForOutput(/^worker .* on (sqlite|postgres)/)));
    const planId = await ws.createPlan(dot);

    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the plan to complete', 45_000, 100);

    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const ran = lines.map((line) => {
      const [plan, node, attempt, pid] = line.split(' ');
      return { plan, node: node!, attempt: Number(attempt), pid: Number(pid) };
    });
    expect(ran).toHaveLength(301);
    expect(new Set(ran.map((r) => r.node)).size).toBe(301);
    expect(new Set(ran.map((r) => r.node))).toEqual(new Set(ids));
    expect(ran.every((r) => r.plan === planId && r.attempt === 1)).toBe(true);
    // The three processes shared the work (and nothing else ran it).
    const pids = new Set(ran.map((r) => r.pid));
    expect([...pids].every((pid) => workers.some((w) => w.pid === pid))).toBe(true);
    expect(pids.size).toBeGreaterThanOrEqual(2);

    const nodes = await ws.store.plans.nodes(planId);
    expect(nodes.filter((n) => n.status === 'done' && n.attempts === 1)).toHaveLength(301);
    // The join ran after each of its 200 parents had, with every parent counted once.
    const joined = ran.findIndex((r) => r.node === 'j');
    expect(ran.slice(joined + 1).filter((r) => r.node.startsWith('r'))).toEqual([]);
    expect(nodes.find((n) => n.id === 'j')).toMatchObject({ waiting: 0, taken: 200 });
    // One claim per node in the event log.
    const claims = (await ws.store.events.list(planId)).filter((e) => e.nodeId !== undefined && e.to === 'running');
    expect(claims).toHaveLength(301);
    for (const w of workers) expect(w.hasExited(), w.stderr()).toBe(false); // none crashed
  });
});
