/**
 * A hand edit of a running plan with real worker processes (issue 7's first acceptance point): a
 * plan runs until a node fails; the operator, in one `plan apply`, inserts a node between two
 * pending nodes, changes a pending node's input and retries the failed node; the worker runs the
 * new node, the changed input is used, and the plan completes.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace, showPlan, statuses, workflow, json, type Workspace } from './workspace.js';

describe('hand edits with a real worker', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('one plan apply inserts a node, changes an input and retries the failed node; the worker runs them and the plan completes', async () => {
    const out = join(ws.dir, 'out', 'log.txt');
    const record = (line: string) => `type=function toolCode=record toolInput=${json({ file: out, line })}`;
    const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n') : []);
    const planId = await ws.createPlan(
      workflow('edit', {
        // `b` fails while the output folder is missing, so the plan stops before `c`.
        nodes: [`a [type=function toolCode=echo toolInput="ok"]`, `b [${record('b')}]`, `c [${record('old c')}]`],
        edges: ['a -> b', 'b -> c'],
      }),
    );
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({ plan: 'failed', a: 'done', b: 'failed', c: 'pending' });

    mkdirSync(join(ws.dir, 'out'));
    const shown = await ws.ok(['plan', 'show', planId, '--format', 'dot']);
    const edited = shown
      .replace(/(\n\s*b \[[^\n]*)status="failed"/, '$1status="ready"')
      .replace('old c', 'new c')
      .replace(/\n\s*b -> c;?/, `\n  n [${record('n')}]\n  b -> n\n  n -> c`);
    const applied = JSON.parse(await ws.ok(['plan', 'apply', planId, ws.write('edited.dot', edited), '--json', '--by', 'ops'])) as {
      applied: boolean;
      revision: number;
    };
    expect(applied).toMatchObject({ applied: true, revision: 2 });
    expect(await statuses(ws, planId)).toEqual({ plan: 'running', a: 'done', b: 'ready', c: 'pending', n: 'pending' });

    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', a: 'done', b: 'done', c: 'done', n: 'done' });
    expect(lines()).toEqual(['b', 'n', 'new c']);
    const events = await ws.store.events.list(planId);
    expect(events.find((e) => e.kind === 'revision' && e.detail?.revision === 2)).toMatchObject({ driver: 'operator', actor: 'ops' });
  });

  it('an apply that leaves out the statuses and outputs of nodes that ran is accepted and changes nothing of them', async () => {
    const out = join(ws.dir, 'missing', 'log.txt');
    const nodes = [
      `a [type=function toolCode=echo toolInput="ok"]`,
      `b [type=function toolCode=record toolInput=${json({ file: out, line: 'b' })}]`,
      `c [type=function toolCode=echo toolInput="old c"]`,
    ];
    const planId = await ws.createPlan(workflow('left_out', { graph: { onFailure: 'stop' }, nodes, edges: ['a -> b', 'b -> c'] }));
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    const before = await showPlan(ws, planId);
    expect(before.nodes.map((n) => [n.id, n.status])).toEqual([
      ['a', 'done'],
      ['b', 'failed'],
      ['c', 'pending'],
    ]);

    // The plan written again by hand, without any live field (no status at all), c's input changed.
    const byHand = [
      'digraph left_out {',
      '  mode="workflow"',
      '  onFailure="stop"',
      ...nodes.map((n) => `  ${n.replace('old c', 'new c')}`),
      '  a -> b',
      '  b -> c',
      '}',
    ];
    const applied = JSON.parse(await ws.ok(['plan', 'apply', planId, ws.write('by-hand.dot', byHand.join('\n')), '--json'])) as {
      applied: boolean;
      changes: Array<{ node: string; attribute: string; to: string }>;
    };
    expect(applied.applied).toBe(true);
    expect(applied.changes).toEqual([expect.objectContaining({ node: 'c', attribute: 'toolInput', to: 'new c' })]);

    // `plan show` with every live field deleted: no change at all.
    const shown = await ws.ok(['plan', 'show', planId]);
    const stripped = shown.replace(/,? (status|toolOutput|error|answer)="[^"]*"/g, '');
    expect(stripped).not.toMatch(/status=/);
    const again = await ws.dotplan(['plan', 'apply', planId, ws.write('stripped.dot', stripped)]);
    expect(again.stderr).toBe('');
    expect(again.stdout).toMatch(/^no change/);

    const after = await showPlan(ws, planId);
    expect(after.status).toBe('failed');
    expect(after.nodes.map(({ id, status, output, error, attempts }) => ({ id, status, output, error, attempts }))).toEqual(
      before.nodes.map(({ id, status, output, error, attempts }) => ({ id, status, output, error, attempts })),
    );
  });

  it('plan apply of new work reopens a completed plan and the worker runs it; a cancelled plan refuses the edit, naming plan rerun', async () => {
    const planId = await ws.createPlan(workflow('done_once', { nodes: [`a [type=function toolCode=echo toolInput="A"]`] }));
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', a: 'done' });

    const shown = await ws.ok(['plan', 'show', planId]);
    const edited = shown.replace(/\n}\s*$/, '\n  b [type="function", toolCode="echo", toolInput="B after {{nodes.a.output}}"];\n  a -> b;\n}\n');
    const applied = await ws.dotplan(['plan', 'apply', planId, ws.write('more.dot', edited), '--by', 'ops']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/revision 2 applied/);
    expect(await statuses(ws, planId)).toEqual({ plan: 'running', a: 'done', b: 'ready' });
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', a: 'done', b: 'done' });
    expect((await ws.nodes(planId)).get('b')?.output).toBe('B after A');
    const events = JSON.parse(await ws.ok(['plan', 'events', planId, '--json'])) as Array<{
      nodeId?: string;
      kind: string;
      driver: string;
      actor?: string;
      from: string;
      to: string;
      reason?: string;
    }>;
    expect(events.filter((e) => e.kind === 'status' && e.nodeId === undefined).map((e) => `${e.from || '∅'}→${e.to}`)).toEqual([
      '∅→draft',
      'draft→running',
      'running→completed',
      'completed→running',
      'running→completed',
    ]);
    expect(events.find((e) => e.from === 'completed' && e.to === 'running')).toMatchObject({
      driver: 'operator',
      actor: 'ops',
      reason: expect.stringMatching(/^reopened by ops in revision 2/) as unknown,
    });

    const cancelled = await ws.createPlan(workflow('stopped', { nodes: [`a [type=function toolCode=echo toolInput="A"]`] }));
    await ws.ok(['plan', 'cancel', cancelled]);
    const refused = await ws.dotplan(['plan', 'apply', cancelled, ws.write('again.dot', edited.replace(/\n\s*(revision|asOfEvent)="\d+";?/g, ''))]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error PLAN_CLOSED: plan ${cancelled} is cancelled: a cancelled plan takes no revision. Fix: run it again as a new plan: dotplan plan rerun ${cancelled}`,
    );
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });
});
