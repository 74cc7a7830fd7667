import { describe, expect, it } from 'vitest';
import { decideReadiness } from '../../src/engine/readiness.js';
import { executeNode } from '../../src/engine/execute-node.js';
import type { NodeStatus } from '../../src/model/types.js';
import { instantiateTemplate, loadTemplate } from '../../src/templates/index.js';
import { createRegistry } from '../../src/tools/registry.js';

interface NodeState {
  status: NodeStatus;
  output?: string;
  answer?: string;
}

/**
 * Runs an instantiated template in memory, in the order the engine would: a pending node runs once its
 * readiness says so, confirm nodes take `answers[id]` or their `default`. No store, no worker: this
 * checks the templates' wiring (references, tool inputs, when-branches), not the engine.
 */
async function runTemplate(name: string, values: Record<string, string>, answers: Record<string, string> = {}) {
  const tools = await createRegistry();
  const { graph, params } = instantiateTemplate(loadTemplate(name), values);
  const state = new Map<string, NodeState>(graph.nodes.map((n) => [n.id, { status: 'pending' }]));
  for (let progress = true; progress; ) {
    progress = false;
    for (const node of graph.nodes) {
      const current = state.get(node.id)!;
      if (current.status !== 'pending') continue;
      const incoming = graph.edges
        .filter((e) => e.to === node.id)
        .map((e) => {
          const source = state.get(e.from)!;
          return { from: e.from, when: e.attributes.when, sourceStatus: source.status, sourceOutput: source.output, sourceAnswer: source.answer };
        });
      const decision = decideReadiness(incoming);
      if (decision === 'wait') continue;
      progress = true;
      if (decision === 'skipped') {
        current.status = 'skipped';
      } else if (node.attributes.type === 'confirm') {
        Object.assign(current, { status: 'done', answer: answers[node.id] ?? node.attributes.default });
      } else {
        const { output } = await executeNode(
          { id: node.id, type: node.attributes.type as 'function' | 'multiFunction', attributes: node.attributes },
          {
            planId: 'p',
            attempt: 1,
            signal: new AbortController().signal,
            log: () => {},
            params,
            nodes: (id) => state.get(id),
          },
          tools,
        );
        Object.assign(current, { status: 'done', output });
      }
    }
  }
  return state;
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
