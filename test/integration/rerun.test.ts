/**
 * History cannot be fabricated at create, and a stored plan can be run again (issue 13, item 6):
 * `plan create --dot` of a file with done, failed, running or cancelled nodes and their outputs (a
 * `plan show` of another plan) starts every such node pending without the recorded values, each
 * reset named in a HISTORY_RESET warning on stderr (and in --json), and the plan runs; `plan rerun`
 * makes a new plan of a stored one — every node pending, or from a node on with the results before
 * it carried over — linked to the old one.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, openWorkspace, showPlan, statuses, workflow, type Workspace } from './workspace.js';

interface Warning {
  code: string;
  severity: string;
  node?: string;
  attribute?: string;
  message: string;
  fix?: string;
}

describe('history at create, and plan rerun', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('plan create --dot resets statuses and recorded values it was given, with a warning for each, and the plan runs', async () => {
    const dot = [
      'digraph copied {',
      '  mode="workflow"',
      '  a [type="function", toolCode="echo", toolInput="A", status="done", toolOutput="forged A"];',
      '  b [type="function", toolCode="echo", toolInput="B {{nodes.a.output}}", status="running"];',
      '  c [type="function", toolCode="echo", toolInput="C", status="failed", error="it broke"];',
      '  d [type="confirm", question="ok?", status="done", answer="yes"];',
      '  e [type="function", toolCode="echo", toolInput="E", status="已取消"];',
      '  a -> b',
      '}',
    ].join('\n');
    const file = ws.write('copied.dot', dot);
    const created = await ws.dotplan(['plan', 'create', '--dot', file]);
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    const warnings = created.stderr.trim().split('\n');
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`^${file}:3: warning HISTORY_RESET: node "a": status "done" is history`)),
      expect.stringMatching(/:3: warning HISTORY_RESET: node "a": toolOutput is a recorded result/),
      expect.stringMatching(/:4: warning HISTORY_RESET: node "b": status "running" is history/),
      expect.stringMatching(/:5: warning HISTORY_RESET: node "c": status "failed" is history/),
      expect.stringMatching(/:5: warning HISTORY_RESET: node "c": error is a recorded result/),
      expect.stringMatching(/:6: warning HISTORY_RESET: node "d": status "done" is history/),
      expect.stringMatching(/:6: warning HISTORY_RESET: node "d": answer is a recorded result/),
      expect.stringMatching(/:7: warning HISTORY_RESET: node "e": status "已取消" is history/),
    ]);
    expect(warnings[0]).toContain('Fix: to run a stored plan again: dotplan plan rerun <id>');
    expect(await statuses(ws, id)).toEqual({ plan: 'running', a: 'ready', b: 'pending', c: 'ready', d: 'ready', e: 'ready' });
    expect([...(await ws.nodes(id)).values()].filter((n) => n.output !== undefined || n.answer !== undefined || n.error !== undefined)).toEqual([]);

    // Nothing was born running without a lease: the worker runs what is ready and stops at the question.
    const worker = await ws.dotplan(['worker', '--until-idle'], { timeoutMs: 30_000 });
    expect(worker.code).toBe(0);
    expect(await statuses(ws, id)).toEqual({ plan: 'running', a: 'done', b: 'done', c: 'done', d: 'awaiting_input', e: 'done' });
    expect((await ws.nodes(id)).get('b')?.output).toBe('B A');

    const asJson = JSON.parse(await ws.ok(['plan', 'create', '--dot', file, '--json'])) as { id: string; status: string; warnings: Warning[] };
    expect(asJson.status).toBe('running');
    expect(asJson.warnings.map((w) => [w.code, w.severity, w.node, w.attribute])).toEqual([
      ['HISTORY_RESET', 'warning', 'a', 'status'],
      ['HISTORY_RESET', 'warning', 'a', 'toolOutput'],
      ['HISTORY_RESET', 'warning', 'b', 'status'],
      ['HISTORY_RESET', 'warning', 'c', 'status'],
      ['HISTORY_RESET', 'warning', 'c', 'error'],
      ['HISTORY_RESET', 'warning', 'd', 'status'],
      ['HISTORY_RESET', 'warning', 'd', 'answer'],
      ['HISTORY_RESET', 'warning', 'e', 'status'],
    ]);
  });

  it('plan create --dot of another plan as plan show wrote it makes a fresh plan of it', async () => {
    const first = await ws.createPlan(
      workflow('original', { nodes: ['a [type=function toolCode=echo toolInput="A"]', 'b [type=function toolCode=echo toolInput="B"]'], edges: ['a -> b'] }),
    );
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    const shown = ws.write('shown.dot', await ws.ok(['plan', 'show', first]));
    const copy = await ws.dotplan(['plan', 'create', '--dot', shown, '--json']);
    const { id, warnings } = JSON.parse(copy.stdout) as { id: string; warnings: Warning[] };
    expect(warnings.map((w) => `${w.node}.${w.attribute}`)).toEqual(['a.status', 'a.toolOutput', 'b.status', 'b.toolOutput']);
    expect(await statuses(ws, id)).toEqual({ plan: 'running', a: 'ready', b: 'pending' });
    expect((await ws.store.plans.revision(id, 1)).dot).not.toMatch(/done|toolOutput/); // revision 1 holds no history either
  });

  it('plan rerun runs a stored plan again as a new plan, from the start or from a node on, linked to the old one', async () => {
    const out = (line: string) => json({ file: `${ws.dir}/missing/log.txt`, line });
    const old = await ws.createPlan(
      workflow('twice', {
        graph: { label: 'Twice' },
        nodes: [
          'a [type=function toolCode=echo toolInput="A"]',
          `b [type=function toolCode=record toolInput=${out('b')}]`,
          'c [type=function toolCode=echo toolInput="C {{nodes.b.output}}"]',
        ],
        edges: ['a -> b', 'b -> c'],
      }),
    );
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await statuses(ws, old)).toEqual({ plan: 'failed', a: 'done', b: 'failed', c: 'pending' });

    const all = JSON.parse(await ws.ok(['plan', 'rerun', old, '--json', '--by', 'ops'])) as { id: string; status: string; rerunOf: string };
    expect(all).toMatchObject({ status: 'running', rerunOf: old });
    expect(await statuses(ws, all.id)).toEqual({ plan: 'running', a: 'ready', b: 'pending', c: 'pending' });
    const shownAll = JSON.parse(await ws.ok(['plan', 'show', all.id, '--format', 'json'])) as { title: string; rerunOf: string };
    expect(shownAll).toMatchObject({ title: 'Twice (rerun)', rerunOf: old });

    // From b: a keeps its result (carried over, with an event saying so), b and c run again.
    await ws.ok(['plan', 'cancel', all.id]);
    mkdirSync(join(ws.dir, 'missing')); // b can write now
    const fromB = (await ws.ok(['plan', 'rerun', old, '--from', 'b', '--title', 'Second try', '--by', 'ops'])).trim();
    expect(await statuses(ws, fromB)).toEqual({ plan: 'running', a: 'done', b: 'ready', c: 'pending' });
    expect((await ws.nodes(fromB)).get('a')).toMatchObject({ status: 'done', output: 'A', attempts: 0 });
    const events = await ws.store.events.list(fromB);
    expect(events.find((e) => e.nodeId === 'a')).toMatchObject({
      kind: 'status',
      driver: 'operator',
      actor: 'ops',
      from: '',
      to: 'done',
      reason: `carried over from plan ${old}`,
    });
    expect(events.find((e) => e.kind === 'revision')).toMatchObject({ driver: 'operator', actor: 'ops', detail: { revision: 1, rerunOf: old, from: 'b' } });
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    const done = await showPlan(ws, fromB);
    expect(done.status).toBe('completed');
    expect(done.nodes.find((n) => n.id === 'c')?.output).toBe('C b');
    const list = JSON.parse(await ws.ok(['plan', 'list', '--json'])) as Array<{ id: string; title: string; rerunOf?: string }>;
    expect(list.find((p) => p.id === fromB)).toMatchObject({ title: 'Second try', rerunOf: old });
    expect(list.find((p) => p.id === old)?.rerunOf).toBeUndefined();

    const unknown = await ws.dotplan(['plan', 'rerun', old, '--from', 'bb']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`from "bb": plan ${old} has no node "bb"; its nodes are a, b, c`);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
  });
});
