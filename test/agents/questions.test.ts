/**
 * A question two levels down the plan stack waits in its child plan: `dotplan inbox` lists it with
 * its path from the root (and the worker's notice says it), the root's `plan tree`, `plan show` and
 * `plan list` say it waits below, `inbox --plan` of the root or any plan above the question lists it (and so the root, as an
 * A2A task, asks for input), `dotplan answer <child> <node>` answers it, and the root completes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { noticeText, type Notice } from '../../src/notify/notice.js';
import { runInProcess } from '../support/in-process.js';
import { cleanEnv } from '../support/run.js';
import { readFacts, stateName, taskState } from '../../src/a2a-server/task-view.js';
import { defaultConfig } from '../../src/config/defaults.js';
import { DotplanReads } from '../../src/operations/dotplan-reads.js';
import type { TreeView } from '../../src/operations/tree-views.js';
import { createRegistry } from '../../src/tools/registry.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

describe('questions inside child plans', () => {
  let h: TreeHarness | undefined;
  afterEach(async () => h?.cleanup());

  it('two levels down: listed in the inbox with its path, answered, and the root completes', async () => {
    h = await openTreeHarness({
      agents: [
        { code: 'research', kind: 'workflow', template: 'research', agents: ['approver'] },
        { code: 'approver', kind: 'workflow', template: 'approve' },
      ],
      templates: {
        research: `digraph research { check [type=agent agentCode=approver task="approve it"] }`,
        approve: `digraph approve { approve [type=confirm question="Publish the findings?"] done [type=function toolCode=echo toolInput="{{nodes.approve.answer}}"] approve -> done }`,
      },
    });
    const root = await h.create(`digraph root { label="Report" research [type=agent agentCode=research task="research it"] }`);
    // The worker's notice (what the chat-app notifiers send) says where the question is, too.
    const notices: Notice[] = [];
    const worker = h.worker({ untilIdle: true }).on('notice', (notice) => notices.push(notice));
    worker.start();
    await worker.idle;
    expect(notices).toHaveLength(1);
    expect(noticeText(notices[0]!)).toContain('\nIn: Report › research › research_001 › check › approver_001 › approve\n');
    const env = cleanEnv();
    const db = ['--db', h.store.url];
    const inbox = await runInProcess([...db, 'inbox', '--json'], { env, cwd: h.dir });
    const [entry] = JSON.parse(inbox.stdout) as Array<{ planId: string; nodeId: string; path: string; command: string }>;
    expect(entry!.path).toBe('Report › research › research_001 › check › approver_001 › approve');
    expect(entry!.command).toBe(`dotplan answer ${entry!.planId} approve "<your answer>"`);
    const text = await runInProcess([...db, 'inbox'], { env, cwd: h.dir });
    expect(text.stdout).toContain('(Report › research › research_001 › check › approver_001 › approve)');
    // The root's `plan tree` and `plan show` say where below it a question waits, and what each agent node runs.
    const tree = JSON.parse((await runInProcess([...db, 'plan', 'tree', root, '--json'], { env, cwd: h.dir })).stdout) as TreeView;
    expect(tree.plans.map((p) => [p.instance ?? 'root', p.status, p.waiting])).toEqual([
      ['root', 'running', []],
      ['research_001', 'running', []],
      ['approver_001', 'running', [{ nodeId: 'approve', question: 'Publish the findings?' }]],
    ]);
    const research = tree.plans[1]!.id;
    const show = (await runInProcess([...db, 'plan', 'show', root], { env, cwd: h.dir })).stdout;
    expect(show).toContain(`agent node research runs child plan ${research} (research_001, running)`);
    expect(show).toContain(`waiting in child plan ${entry!.planId} (approver_001): an answer to node approve`);
    const below = (await runInProcess([...db, 'plan', 'show', research], { env, cwd: h.dir })).stdout;
    expect(below).toContain(`agent node check runs child plan ${entry!.planId} (approver_001, running)`);
    expect(below).toContain(`child plan of node research of ${root} (instance research_001, root ${root})`);
    // `plan list` counts what waits in each plan and below it: the root says one question waits in its tree.
    const roots = JSON.parse((await runInProcess([...db, 'plan', 'list', '--json'], { env, cwd: h.dir })).stdout) as Array<{ id: string; waiting: number }>;
    expect(roots.map((p) => [p.id, p.waiting])).toEqual([[root, 1]]);
    const table = (await runInProcess([...db, 'plan', 'list', '--all'], { env, cwd: h.dir })).stdout;
    for (const id of [root, research, entry!.planId]) expect(table).toMatch(new RegExp(`^${id}\\s+running\\s+\\S+\\s+1\\s`, 'm'));
    // `inbox --plan` of the root, or of the plan between, lists the question below it; of another plan, not.
    const cwd = h.dir;
    const listed = async (planId: string) =>
      (JSON.parse((await runInProcess([...db, 'inbox', '--plan', planId, '--json'], { env, cwd })).stdout) as Array<{ planId: string; path: string }>).map(
        (e) => [e.planId, e.path],
      );
    const there = [[entry!.planId, 'Report › research › research_001 › check › approver_001 › approve']];
    expect(await listed(root)).toEqual(there);
    expect(await listed(research)).toEqual(there);
    expect(await listed(entry!.planId)).toEqual(there);
    const other = await h.create(`digraph other { label="Other" a [type=confirm question="Elsewhere?"] }`);
    await h.runUntilIdle();
    expect(await listed(other)).toEqual([[other, undefined]]);
    expect(await listed(root)).toEqual(there);
    // The inbox of every plan: each question with its own tree's path (the chains of both read at once), oldest first.
    const everything = JSON.parse((await runInProcess([...db, 'inbox', '--json'], { env, cwd })).stdout) as Array<{ planId: string; path?: string }>;
    expect(everything.map((e) => [e.planId, e.path])).toEqual([...there, [other, undefined]]);
    // So the root, served as an A2A task, asks for input (the task's state is read from its tree's inbox).
    const reads = new DotplanReads(h.store, await createRegistry(), defaultConfig(), h.dir);
    expect(stateName(taskState(await readFacts(reads, root)))).toBe('INPUT_REQUIRED');
    const answered = await runInProcess([...db, 'answer', entry!.planId, 'approve', 'yes'], { env, cwd: h.dir });
    expect(answered.code, answered.stderr).toBe(0);
    await h.runUntilIdle();
    expect((await h.store.plans.get(root)).status).toBe('completed');
    expect(JSON.parse((await h.store.plans.node(root, 'research')).output!)).toEqual({ check: '{"done":"yes"}' });
  });
});
