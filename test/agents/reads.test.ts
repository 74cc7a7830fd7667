/**
 * Reading a tree: `events.follow({ rootPlanId })` delivers the events of the root and of every child
 * plan, those made after the follow began too, in commit order; `plan events --tree` interleaves
 * them, each with its plan's instance; `plan tree` prints the stack, `plan list --all` the children, and
 * `plan report` has a section per child (Markdown, JSON and HTML); `render` draws an agent node's child's status;
 * `agent history` finds an instance by id, by tree, or by its child plan's id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DotplanEvents } from '../../src/operations/events.js';
import type { EventRecord } from '../../src/store/types.js';
import { runInProcess } from '../support/in-process.js';
import { cleanEnv } from '../support/run.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

describe('reading a tree', () => {
  let h: TreeHarness | undefined;
  afterEach(async () => h?.cleanup());

  it('follows and lists the events of a whole tree, children made later included', async () => {
    h = await openTreeHarness({
      agents: [{ code: 'summariser', kind: 'workflow', template: 'sum' }],
      templates: { sum: `digraph sum { s [type=function toolCode=echo toolInput="summed"] }` },
    });
    const root = await h.create(
      `digraph root { label="Report" a [type=agent agentCode=summariser task="sum it"] b [type=function toolCode=echo toolInput="after"] a -> b }`,
    );
    const seen: EventRecord[] = [];
    const following = new DotplanEvents(h.store).follow({ rootPlanId: root }, (event) => {
      seen.push(event);
      return event.planId === root && event.nodeId === undefined && event.to === 'completed';
    });
    await h.runUntilIdle();
    await following.ended;
    const child = (await h.store.plans.node(root, 'a')).childPlanId!;
    expect(new Set(seen.map((e) => e.planId))).toEqual(new Set([root, child]));
    expect(seen.map((e) => e.id)).toEqual([...seen.map((e) => e.id)].sort((x, y) => x - y));
    expect(seen.some((e) => e.planId === child && e.nodeId === 's' && e.to === 'done')).toBe(true);

    const db = ['--db', h.store.url];
    const env = cleanEnv();
    const events = await runInProcess([...db, 'plan', 'events', root, '--tree'], { env, cwd: h.dir });
    expect(events.stdout).toMatch(/summariser_001\s+status\s+s\s+running → done/);
    expect(events.stdout).toMatch(/root\s+status\s+a\s+running → done/);
    const tree = await runInProcess([...db, 'plan', 'tree', child], { env, cwd: h.dir });
    expect(tree.stdout).toContain(`Report  ${root}  completed`);
    expect(tree.stdout).toContain(`  a → summariser_001  ${child}  completed ◀`);
    const report = await runInProcess([...db, 'plan', 'report', root], { env, cwd: h.dir });
    expect(report.stdout).toContain(`# Child plan summariser_001 (${child}), for node a of ${root}`);
    const json = JSON.parse((await runInProcess([...db, 'plan', 'report', root, '--format', 'json'], { env, cwd: h.dir })).stdout) as {
      children: Array<{ instance: string }>;
    };
    expect(json.children.map((c) => c.instance)).toEqual(['summariser_001']);
    const html = (await runInProcess([...db, 'plan', 'report', root, '--format', 'html'], { env, cwd: h.dir })).stdout;
    expect(html).toContain(`<section class="child-plan" id="child-${child}"><h2>Child plan summariser_001 (${child}), for node a of ${root}</h2>`);
    expect(html).toContain(`id="child-${child}-summary"`); // the child's sections, ids unique on the page
    expect(html.match(/<svg/g)).toHaveLength(2); // the root drawn, and the child
    expect(html).toContain('summariser_001: completed'); // under the agent node of the root's drawing
    const svg = (await runInProcess([...db, 'render', '--plan', root], { env, cwd: h.dir })).stdout;
    expect(svg).toMatch(/<g id="node\d+" class="node status&#45;done type&#45;agent child&#45;completed">/);
    expect(svg).toContain('>summariser_001: completed</text>');
    const list = await runInProcess([...db, 'plan', 'list'], { env, cwd: h.dir });
    expect(list.stdout).not.toContain(child);
    const all = await runInProcess([...db, 'plan', 'list', '--all'], { env, cwd: h.dir });
    expect(all.stdout).toMatch(new RegExp(`${child}\\s+completed\\s+\\S+\\s+-\\s+${root}/a\\s+summariser_001`));
  });

  it('agent history finds an instance by its id, asks which tree when several have it, and says when none has', async () => {
    h = await openTreeHarness({
      agents: [{ code: 'summariser', kind: 'workflow', template: 'sum' }],
      templates: { sum: `digraph sum { s [type=function toolCode=echo toolInput="summed"] }` },
    });
    const first = await h.create(`digraph first { a [type=agent agentCode=summariser task="sum one"] }`);
    const second = await h.create(`digraph second { a [type=agent agentCode=summariser task="sum two"] }`);
    await h.runUntilIdle();
    const [one, two] = [(await h.store.plans.node(first, 'a')).childPlanId!, (await h.store.plans.node(second, 'a')).childPlanId!];
    const cli = (...args: string[]) => runInProcess(['--db', h!.store.url, 'agent', 'history', ...args], { env: cleanEnv(), cwd: h!.dir });
    const both = await cli('summariser_001');
    expect(both.code).not.toBe(0);
    // Listed in the order the children were made (the worker may have made either first).
    const trees = [`${one} under ${first}`, `${two} under ${second}`].sort().join(', ');
    expect(both.stderr).toContain(`2 trees have an instance summariser_001 (${trees}); name the tree with --root <root plan> or give the child plan's id`);
    const named = JSON.parse((await cli('summariser_001', '--root', second, '--json')).stdout) as { planId: string; instance: string; agentCode: string };
    expect(named).toMatchObject({ planId: two, instance: 'summariser_001', agentCode: 'summariser' });
    expect((await cli(one)).stdout).toContain(`summariser_001 (workflow, plan ${one}): 0 messages`);
    const none = await cli('summariser_009');
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('no agent instance "summariser_009"; see the instances with `dotplan plan tree <plan>`');
  });
});
