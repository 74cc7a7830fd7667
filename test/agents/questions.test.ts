/**
 * A question two levels down the plan stack waits in its child plan: `dotplan inbox` lists it with
 * its path from the root (and the worker's notice says it), the root's `plan tree` and `plan show` say it
 * waits below, `dotplan answer <child> <node>` answers it, and the root completes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { noticeText, type Notice } from '../../src/notify/notice.js';
import { runInProcess } from '../support/in-process.js';
import { cleanEnv } from '../support/run.js';
import type { TreeView } from '../../src/operations/tree-views.js';
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
    const answered = await runInProcess([...db, 'answer', entry!.planId, 'approve', 'yes'], { env, cwd: h.dir });
    expect(answered.code, answered.stderr).toBe(0);
    await h.runUntilIdle();
    expect((await h.store.plans.get(root)).status).toBe('completed');
    expect(JSON.parse((await h.store.plans.node(root, 'research')).output!)).toEqual({ check: '{"done":"yes"}' });
  });
});
