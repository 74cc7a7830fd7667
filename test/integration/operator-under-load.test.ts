/**
 * An operator acting on a plan while three worker processes run it (PostgreSQL: several workers on
 * one database is its use): a 300-node plan — 20 chains of 15 nodes whose tools take a moment and
 * record every run — runs under three `dotplan worker --until-idle` processes; meanwhile the
 * operator skips 20 nodes that have not run yet (`dotplan node skip`), then cancels the plan
 * (`dotplan plan cancel`). No skipped node's tool ran, no tool ran twice, and once the workers have
 * exited no node is `running` and every node's history is a path the state machine allows, ending in
 * a status a cancelled plan may hold.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canMoveNode } from '../../src/state/node-moves.js';
import { TERMINAL_NODE_STATUSES } from '../../src/model/status.js';
import type { NodeStatus } from '../../src/model/types.js';
import { waitUntil } from '../support/cli.js';
import { testBackend } from '../support/db.js';
import { openWorkspace, workflow, json, type Workspace } from './workspace.js';

const isPostgres = testBackend() === 'postgres';
const CHAINS = 20;
const DEPTH = 15;
const TOOL_MS = 500;
const SKIPS = 20;
const SKIPS_AT_ONCE = 4;
/** Nodes each worker runs at once: 3 × 2 slots over 300 nodes of TOOL_MS keeps the plan busy for ~25 s, well past the skips. */
const CONCURRENCY = 2;
const WORKERS = 3;

describe.skipIf(!isPostgres)(
  'an operator skips and cancels while three workers run a 300-node plan (PostgreSQL only: SQLite is one machine, one writer)',
  () => {
    let ws: Workspace;
    beforeEach(async () => {
      ws = await openWorkspace('postgres');
    });
    afterEach(async () => {
      await ws.cleanup();
    });

    it('no skipped node runs, no tool runs twice, nothing is left running, every node ends where a cancelled plan allows', async () => {
      const file = join(ws.dir, 'ran.txt');
      const id = (chain: number, step: number) => `c${String(chain).padStart(2, '0')}_${String(step).padStart(2, '0')}`;
      const chains = Array.from({ length: CHAINS }, (_, c) => Array.from({ length: DEPTH }, (_, s) => id(c, s)));
      // Each node's tool records its run ("plan node attempt pid") and takes TOOL_MS.
      const node = (nodeId: string) =>
        `${nodeId} [type=multiFunction toolCalls=${json([
          { toolCode: 'record', toolInput: { file } },
          { toolCode: 'sleep', toolInput: { ms: TOOL_MS } },
        ])}]`;
      const planId = await ws.createPlan(workflow('busy', { nodes: chains.flat().map(node), edges: chains.map((chain) => chain.join(' -> ')) }));
      expect((await ws.store.plans.nodes(planId)).length).toBe(CHAINS * DEPTH);

      const workers = Array.from({ length: WORKERS }, () => ws.spawnProcess(['worker', '--until-idle', '--quiet', '--concurrency', String(CONCURRENCY)]));
      await waitUntil(async () => (await ws.store.plans.nodes(planId)).some((n) => n.status === 'done'), 'the workers to finish a first node');

      // The operator skips 20 pending nodes, a few at a time as the work goes on, one per chain: the first
      // node of a chain that is pending behind six pending parents, so that at least six tool runs (3 s)
      // stand between it and a claim while the skip commands start and run, even on a loaded machine.
      const toSkip: string[] = [];
      while (toSkip.length < SKIPS) {
        const status = new Map((await ws.store.plans.nodes(planId)).map((n) => [n.id, n.status]));
        const batch = chains
          .filter((chain) => !chain.some((id) => toSkip.includes(id)))
          .map((chain) => chain.find((_, k) => k >= 6 && chain.slice(k - 6, k + 1).every((id) => status.get(id) === 'pending')))
          .filter((id): id is string => id !== undefined)
          .slice(0, Math.min(SKIPS_AT_ONCE, SKIPS - toSkip.length));
        if (batch.length === 0) throw new Error(`no pending node left to skip after ${toSkip.length} skips: make the tools slower`);
        const results = await Promise.all(batch.map((nodeId) => ws.dotplan(['node', 'skip', planId, nodeId, '--by', 'ops', '--reason', 'not needed'])));
        results.forEach((skipped, i) => expect(skipped.code, `skip ${batch[i]}: ${skipped.stderr}`).toBe(0));
        toSkip.push(...batch);
      }
      const before = await ws.store.plans.nodes(planId);
      expect(before.filter((n) => n.status === 'done').length).toBeGreaterThan(0); // the plan was really running
      expect(before.filter((n) => n.status === 'pending' || n.status === 'ready').length).toBeGreaterThan(CHAINS); // and far from over

      const cancelled = await ws.dotplan(['plan', 'cancel', planId, '--by', 'ops', '--reason', 'change of plans']);
      expect(cancelled.code, cancelled.stderr).toBe(0);
      expect(cancelled.stdout.trim()).toBe(`${planId}: cancelled`);

      // The workers see nothing left to do and exit; whatever they were running is refused.
      for (const worker of workers) {
        const exit = await worker.exited;
        expect(exit.code, exit.stderr).toBe(0);
      }

      const nodes = await ws.store.plans.nodes(planId);
      const events = await ws.store.events.list(planId);
      const runs = (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []).map((line) => line.split(' ')[1]!);
      const byId = new Map(nodes.map((n) => [n.id, n]));

      expect((await ws.store.plans.get(planId)).status).toBe('cancelled');
      expect(nodes.filter((n) => n.status === 'running')).toEqual([]);

      // Skips: each made by the operator from pending, the node still skipped, its tool never run.
      for (const nodeId of toSkip) {
        expect(byId.get(nodeId)!.status, nodeId).toBe('skipped');
        const skip = events.filter((e) => e.nodeId === nodeId && e.to === 'skipped');
        expect(skip, nodeId).toMatchObject([{ kind: 'status', driver: 'operator', actor: 'ops', from: 'pending', reason: 'not needed' }]);
      }
      expect(runs.filter((n) => toSkip.includes(n))).toEqual([]);

      // No tool ran twice; every done node ran exactly once; a node that never started never ran.
      expect(runs.length).toBe(new Set(runs).size);
      for (const n of nodes.filter((n) => n.status === 'done')) expect(runs, n.id).toContain(n.id);
      for (const nodeId of runs) expect(['done', 'cancelled'], nodeId).toContain(byId.get(nodeId)!.status);
      for (const n of nodes) expect(n.attempts, n.id).toBeLessThanOrEqual(1);

      // Every node: a finished status, reached by moves the state machine allows, the last one its status.
      const allowedAfterCancel = new Set<NodeStatus>([...TERMINAL_NODE_STATUSES].filter((s) => s !== 'failed')); // no tool here fails
      for (const n of nodes) {
        expect(allowedAfterCancel.has(n.status), `${n.id} is ${n.status}`).toBe(true);
        const moves = events.filter((e) => e.nodeId === n.id && e.kind === 'status');
        let status = 'pending';
        for (const move of moves) {
          expect(move.from, `${n.id}: ${move.from}→${move.to}`).toBe(status);
          expect(canMoveNode(move.from as NodeStatus, move.to as NodeStatus, move.driver), `${n.id}: ${move.driver} ${move.from}→${move.to}`).toBe(true);
          status = move.to;
        }
        expect(status, n.id).toBe(n.status);
        if (n.status === 'cancelled') expect(moves.at(-1)).toMatchObject({ driver: 'engine', reason: expect.stringContaining('cancelled') as unknown });
      }
      // The cancel caught attempts mid-tool: those nodes were cancelled from running, their results refused.
      const cancelledRunning = nodes.filter((n) => events.some((e) => e.nodeId === n.id && e.from === 'running' && e.to === 'cancelled'));
      const count = (status: string) => nodes.filter((n) => n.status === status).length;
      console.log(
        `after the cancel: ${count('done')} done, ${count('skipped')} skipped, ${count('cancelled')} cancelled (${cancelledRunning.length} of them while running)`,
      );
      expect(cancelledRunning.length).toBeGreaterThan(0);
      for (const n of cancelledRunning) expect(n.output, n.id).toBeUndefined();
      // Work was spread over the workers (each ran something), so the test exercised concurrent claims.
      expect(new Set(events.filter((e) => e.nodeId !== undefined && e.to === 'running').map((e) => e.actor)).size).toBe(WORKERS);
      // Nothing happened to the plan's nodes after the workers were gone but the refusals already made.
      expect((await ws.store.events.list(planId)).length).toBe(events.length);
    });
  },
);
