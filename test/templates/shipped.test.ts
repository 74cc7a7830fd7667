import { describe, expect, it } from 'vitest';
import { readDot } from '../../src/dot/index.js';
import { answer as answerNode, finishAttempts, start, StepBuilder, type AttemptResult } from '../../src/engine/index.js';
import type { PlanGraph } from '../../src/model/types.js';
import { findReferences } from '../../src/model/references.js';
import { instantiateTemplate, listTemplates, loadTemplate } from '../../src/templates/index.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import { validateGraph } from '../../src/validate/index.js';
import { SimPlan } from '../engine/sim.js';

const tools = builtinTools();
const catalogue = { has: (code: string) => tools.some((t) => t.code === code) };

/** Sample values for each shipped template's required parameters. */
const SAMPLES: Record<string, Record<string, string>> = {
  'seed-004': {},
  'research-report': { topic: 'solid-state batteries' },
  approval: { item: 'a new laptop' },
  'fan-out-fan-in': {},
};

const shipped = listTemplates();

describe('the shipped templates', () => {
  it('include the four documented ones, each with a title, a description and its parameters', () => {
    expect(shipped.map((t) => t.name)).toEqual(expect.arrayContaining(Object.keys(SAMPLES)));
    for (const t of shipped) {
      expect(t.error, t.name).toBeUndefined();
      expect(t.title, t.name).not.toBe(t.name);
      expect(t.description.length, t.name).toBeGreaterThan(30);
    }
    expect(shipped.find((t) => t.name === 'research-report')?.params).toEqual([
      { name: 'topic' },
      { name: 'audience', default: 'general readers' },
    ]);
  });

  for (const { name } of shipped) {
    describe(name, () => {
      it('parses and validates with the built-in tools, as written and once instantiated', () => {
        const template = loadTemplate(name);
        const result = validateGraph(template.graph, { tools: catalogue, source: template.path, allowAgent: false });
        expect(result.diagnostics).toEqual([]);
        expect(result.valid).toBe(true);
        const plan = instantiateTemplate(template, SAMPLES[name] ?? {});
        const reread = readDot(plan.dot, { source: `${name} (instantiated)` });
        expect(validateGraph(reread, { tools: catalogue, allowAgent: false }).diagnostics).toEqual([]);
        expect(reread.nodes.map((n) => n.id)).toEqual(template.graph.nodes.map((n) => n.id));
      });

      it('refuses unknown parameters, naming the declared ones', () => {
        const template = loadTemplate(name);
        const declared = template.params.map((p) => p.name);
        expect(() => instantiateTemplate(template, { ...SAMPLES[name], nonsense: 'x' })).toThrow(
          new RegExp(`values\\.nonsense .*its parameters: ${declared.join(', ')}`),
        );
      });

      it('gives every tool input that parses as JSON a shape its tool accepts', () => {
        const template = loadTemplate(name);
        for (const node of template.graph.nodes) {
          const calls = node.attributes.toolCalls !== undefined
            ? (JSON.parse(withSampleReferences(node.attributes.toolCalls)) as { toolCode: string; toolInput: unknown }[])
            : node.attributes.toolCode !== undefined
              ? [{ toolCode: node.attributes.toolCode, toolInput: asInput(node.attributes.toolInput ?? '') }]
              : [];
          for (const call of calls) {
            const tool = tools.find((t) => t.code === call.toolCode);
            expect(tool, `${name}/${node.id}: ${call.toolCode}`).toBeDefined();
            const checked = tool!.inputSchema!.safeParse(call.toolInput);
            expect(checked.success, `${name}/${node.id}: ${JSON.stringify(call.toolInput)}`).toBe(true);
          }
        }
      });
    });
  }

  it('seed-004 keeps the seed plan: 节点A→B→C→D, function/confirm/function/confirm, pending', () => {
    const { graph } = loadTemplate('seed-004');
    expect(graph.nodes.map((n) => [n.id, n.attributes.label, n.attributes.type, n.attributes.status])).toEqual([
      ['1', '节点A', 'function', 'pending'],
      ['2', '节点B', 'confirm', 'pending'],
      ['3', '节点C', 'function', 'pending'],
      ['4', '节点D', 'confirm', 'pending'],
    ]);
    expect(graph.edges.map((e) => `${e.from}->${e.to}`)).toEqual(['1->2', '2->3', '3->4']);
    for (const confirm of graph.nodes.filter((n) => n.attributes.type === 'confirm')) {
      expect(confirm.attributes.question).toBeTruthy();
      expect(confirm.attributes.default).toBeTruthy();
    }
    expect(graph.nodes.filter((n) => n.attributes.type === 'function').map((n) => n.attributes.toolCode)).toEqual(['echo', 'template']);
  });

  it('research-report gathers in parallel, drafts from the sources, and asks before publishing', () => {
    const { graph } = loadTemplate('research-report');
    const gather = graph.nodes.filter((n) => n.cluster === 'cluster_gather').map((n) => n.id);
    expect(gather.length).toBeGreaterThanOrEqual(2);
    const draft = node(graph, 'draft');
    for (const source of gather) {
      expect(graph.edges).toContainEqual(expect.objectContaining({ from: source, to: 'draft' }));
      expect(draft.attributes.toolInput).toContain(`{{nodes.${source}.output}}`);
    }
    expect(node(graph, 'review').attributes).toMatchObject({ type: 'confirm', default: 'yes' });
    expect(node(graph, 'review').attributes.question).toMatch(/Publish this report/);
    expect(graph.edges.find((e) => e.to === 'publish')).toMatchObject({ from: 'review' });
  });

  it('fan-out-fan-in runs a cluster of parallel nodes, one of them multiFunction, and merges them', () => {
    const { graph } = loadTemplate('fan-out-fan-in');
    const parallel = graph.nodes.filter((n) => n.cluster === 'cluster_parallel');
    expect(graph.clusters.find((c) => c.id === 'cluster_parallel')?.attributes.label).toBeTruthy();
    expect(parallel.some((n) => n.attributes.type === 'multiFunction')).toBe(true);
    const combine = node(graph, 'combine');
    expect(combine.attributes.toolCode).toBe('json');
    expect(JSON.parse(withSampleReferences(combine.attributes.toolInput!))).toHaveProperty('merge');
    for (const p of parallel) {
      expect(graph.edges).toContainEqual(expect.objectContaining({ from: p.id, to: 'combine' }));
      expect(combine.attributes.toolInput).toContain(`{{nodes.${p.id}.output}}`);
    }
  });
});

describe('the approval template branches on the answer', () => {
  const { graph } = loadTemplate('approval');

  const worker = { retryDefaults: { retries: 0, retryDelay: '1s' }, owner: 'test', claim: 0 };

  /** The plan after `approve` was answered with `answer`, with the engine's own rules. */
  function answered(answer: string): SimPlan {
    const sim = new SimPlan(graph);
    sim.apply(start(sim.snapshot(), sim.candidates()));
    run(sim, 'request', { kind: 'done', output: 'a request' });
    run(sim, 'approve', { kind: 'asked' });
    sim.apply(answerNode(sim.snapshot(), 'approve', answer, { driver: 'person', name: 'test' }));
    return sim;
  }

  function run(sim: SimPlan, id: string, result: AttemptResult): void {
    const claim = new StepBuilder(sim.snapshot());
    claim.claim(id, 'test');
    sim.apply(claim.build());
    sim.apply(finishAttempts(sim.snapshot(), [{ node: id, result, jitter: 0 }], worker));
  }

  for (const answer of ['yes', 'Y', ' approve ']) {
    it(`answer ${JSON.stringify(answer)}: approved runs, rejected is skipped, notify runs after`, () => {
      const sim = answered(answer);
      expect([sim.status('approved'), sim.status('rejected'), sim.status('notify')]).toEqual(['ready', 'skipped', 'pending']);
      const claim = new StepBuilder(sim.snapshot());
      claim.claim('approved', 'test');
      sim.apply(claim.build());
      expect(sim.status('notify')).toBe('pending');
      sim.apply(finishAttempts(sim.snapshot(), [{ node: 'approved', result: { kind: 'done', output: 'ok' }, jitter: 0 }], worker));
      expect(sim.status('notify')).toBe('ready');
    });
  }

  for (const answer of ['no', 'reject', 'not now']) {
    it(`answer ${JSON.stringify(answer)}: rejected runs, approved is skipped, notify runs after`, () => {
      const sim = answered(answer);
      expect([sim.status('approved'), sim.status('rejected'), sim.status('notify')]).toEqual(['skipped', 'ready', 'pending']);
      run(sim, 'rejected', { kind: 'done', output: 'ok' });
      expect(sim.status('notify')).toBe('ready');
    });
  }

  it('asks a question with a default answer, and notify names the answer rather than a skipped branch', () => {
    expect(node(graph, 'approve').attributes).toMatchObject({ type: 'confirm', default: 'yes' });
    const refs = findReferences(node(graph, 'notify').attributes.toolInput ?? '').flatMap((r) => (r.kind === 'nodes' ? [r.node] : []));
    expect(refs).toContain('approve');
    expect(refs).not.toContain('approved');
    expect(refs).not.toContain('rejected');
  });
});

function node(graph: PlanGraph, id: string) {
  const found = graph.nodes.find((n) => n.id === id);
  if (!found) throw new Error(`no node ${id}`);
  return found;
}

/** Every `{{...}}` replaced by a sample value, as the engine does before a tool runs. */
function withSampleReferences(text: string): string {
  return text.replace(/\{\{[\s\S]*?\}\}/g, 'sample');
}

function asInput(text: string): unknown {
  const filled = withSampleReferences(text);
  try {
    return JSON.parse(filled);
  } catch {
    return filled;
  }
}
