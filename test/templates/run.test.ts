import { describe, expect, it } from 'vitest';
import { answer, finishAttempts, start, StepBuilder } from '../../src/engine/index.js';
import { AttemptAbort } from '../../src/execute/attempt-abort.js';
import { executeNode } from '../../src/execute/execute-node.js';
import { instantiateTemplate, loadTemplate } from '../../src/templates/index.js';
import { createRegistry } from '../../src/tools/registry.js';
import { SimPlan } from '../engine/sim.js';

const worker = { retryDefaults: { retries: 0, retryDelay: '1s' }, owner: 'test', claim: 0 };

/**
 * Runs an instantiated template in memory with the engine's own rules (readiness, when-branches,
 * skips) over an in-memory plan: ready nodes run with the built-in tools, confirm nodes ask and take
 * `answers[id]` or their `default`. No store, no worker: this checks the templates' wiring
 * (references, tool inputs, when-branches).
 */
async function runTemplate(name: string, values: Record<string, string>, answers: Record<string, string> = {}) {
  const tools = await createRegistry();
  const { graph, params } = instantiateTemplate(loadTemplate(name), values);
  const sim = new SimPlan(graph);
  sim.apply(start(sim.snapshot(), sim.candidates()));
  for (let ready = readyNodes(sim); ready.length > 0; ready = readyNodes(sim)) {
    for (const id of ready) {
      const claim = new StepBuilder(sim.snapshot());
      claim.claim(id, 'test');
      sim.apply(claim.build());
      const node = sim.nodes.get(id)!;
      if (node.attributes?.type === 'confirm') {
        sim.apply(finishAttempts(sim.snapshot(), [{ node: id, result: { kind: 'asked' }, jitter: 0 }], worker));
        sim.apply(answer(sim.snapshot(), id, answers[id] ?? node.attributes.default ?? '', { driver: 'person', name: 'test' }));
        continue;
      }
      const { output } = await executeNode(
        { id, type: node.attributes?.type as 'function' | 'multiFunction', attributes: node.attributes ?? {} },
        { planId: 'p', attempt: 1, abort: new AttemptAbort(), log: () => {}, params, nodes: (n) => sim.nodes.get(n) },
        tools,
      );
      sim.apply(finishAttempts(sim.snapshot(), [{ node: id, result: { kind: 'done', output }, jitter: 0 }], worker));
    }
  }
  return sim.nodes;
}

function readyNodes(sim: SimPlan): string[] {
  return [...sim.nodes.values()].filter((n) => n.status === 'ready').map((n) => n.id);
}

describe('the shipped templates run to completion with the built-in tools', () => {
  it('seed-004: every step finishes; 节点C uses 节点A\'s output and 节点B\'s answer', async () => {
    const state = await runTemplate('seed-004', { subject: '月度报表' });
    expect([...state.values()].map((s) => s.status)).toEqual(['done', 'done', 'done', 'done']);
    expect(state.get('1')?.output).toBe('收集 月度报表 的输入数据');
    expect(state.get('3')?.output).toBe('月度报表 的处理结果: 基于「收集 月度报表 的输入数据」, 确认答复: yes');
  });

  it('research-report: publishes the draft on yes, skips publishing on no', async () => {
    const yes = await runTemplate('research-report', { topic: 'solid-state batteries', audience: 'managers' });
    const draft = yes.get('draft')?.output ?? '';
    expect(draft).toMatch(/^Report on solid-state batteries for managers\.\n- Web: .*\n- Papers: .*\n- Experts: solid-state batteries is promising/);
    expect(yes.get('publish')).toMatchObject({ status: 'done', output: `Published for managers: ${draft}` });
    const no = await runTemplate('research-report', { topic: 'x' }, { review: 'no' });
    expect(no.get('publish')?.status).toBe('skipped');
  });

  it('approval: yes takes the approved path, no the rejected one; notify runs either way', async () => {
    const yes = await runTemplate('approval', { item: 'a laptop', requester: 'Ada' });
    expect([yes.get('approved')?.status, yes.get('rejected')?.status]).toEqual(['done', 'skipped']);
    expect(yes.get('notify')?.output).toBe('To Ada: your request (Ada asks for a laptop (amount: unspecified).) was answered: yes.');
    const no = await runTemplate('approval', { item: 'a laptop' }, { approve: 'no' });
    expect([no.get('approved')?.status, no.get('rejected')?.status, no.get('notify')?.status]).toEqual(['skipped', 'done', 'done']);
    expect(no.get('rejected')?.output).toBe('Rejected: a laptop will not be ordered.');
  });

  it('fan-out-fan-in: picks each shard, runs the checks, merges them into one object', async () => {
    const state = await runTemplate('fan-out-fan-in', { dataset: 'orders-2027' });
    expect(JSON.parse(state.get('north')?.output ?? '')).toEqual([120, 80]);
    expect(JSON.parse(state.get('checks')?.output ?? '')).toEqual([{ check: 'row count', dataset: 'orders-2027' }, 'schema of orders-2027: ok']);
    expect(JSON.parse(state.get('combine')?.output ?? '')).toEqual({
      north: [120, 80],
      south: [95, 40],
      east: [60, 75],
      checks: [{ check: 'row count', dataset: 'orders-2027' }, 'schema of orders-2027: ok'],
    });
    expect(state.get('summary')?.output).toMatch(/^orders-2027: north \[120,\s*80\], south \[95,\s*40\], east \[60,\s*75\]; checks /);
  });
});
