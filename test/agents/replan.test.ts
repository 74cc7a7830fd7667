/**
 * Leader and executors (seed 002 §3.2): an executor never calls the leader; it ends its work with
 * the built-in `request_replan` tool. Its agent node then fails with the reason, not retried, the
 * leader's next prompt shows it, and re-plans are bounded by `maxReplans`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/llm/scripted-server.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

const GOAL = 'Find the ACME price list';
const node = (id: string, status = '') => `  ${id} [label="search" type="agent" agentCode="searcher" task="Search the ${id} site"${status}];\n`;
const plan = (id: string) =>
  `@epupdatelog@\n- hand it to a searcher\n@epupdatelog@\n@EP@\n${id === 's1' ? '' : `*id=x\n`}*graph=digraph G {\n${id === 's1' ? '' : node('s1')}${node(id, ' status="ready"')}}\n@EP@\n`;

describe('an executor asks the leader to re-plan', () => {
  let h: TreeHarness | undefined;
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await h?.cleanup();
    await server?.close();
  });

  it("request_replan fails the agent node (not retried) with the reason, which reaches the leader's next prompt; maxReplans bounds it", async () => {
    server = await startScriptedServer({
      script: {
        replies: [
          { matchAny: GOAL, match: 'There is no plan yet', content: plan('s1') },
          { matchAny: 'Search the s1 site', toolCalls: [{ name: 'request_replan', arguments: { reason: 'the s1 site is down; try the archive' } }] },
          { matchAny: GOAL, match: 'the s1 site is down', content: plan('s2') },
          { matchAny: 'Search the s2 site', toolCalls: [{ name: 'request_replan', arguments: { reason: 'the archive is empty too' } }] },
          { matchAny: GOAL, match: '^## Goal\\n[^#]*\\n\\n## Results', content: 'No price list could be found.' },
        ],
      },
    });
    h = await openTreeHarness({
      agents: [{ code: 'searcher', kind: 'react', tools: ['echo'] }],
      llmUrl: server.url,
      reflection: { maxReplans: 1 },
    });
    const created = await h.store.plans.create({
      title: GOAL,
      graph: { name: 'plan', strict: false, attributes: { mode: 'reflection', goal: GOAL }, nodes: [], edges: [], clusters: [] },
      dot: `digraph plan { mode="reflection" goal="${GOAL}" }`,
      author: 'person',
    });
    await h.runUntilIdle();
    const s1 = await h.store.plans.node(created.id, 's1');
    expect(s1).toMatchObject({ status: 'failed', attempts: 1, error: 'REPLAN_REQUESTED: the s1 site is down; try the archive' });
    expect((await h.store.plans.node(created.id, 's2')).error).toBe('REPLAN_REQUESTED: the archive is empty too');
    // The leader's rewrite was asked with the executor's reason in its prompt.
    const leaderRewrite = server.requests.find((r) => r.reply === 2)!;
    expect(JSON.stringify(leaderRewrite.body)).toContain('REPLAN_REQUESTED: the s1 site is down; try the archive');
    // Two re-plans with maxReplans=1: the leader is asked for its explanation, not for a third plan, and the plan fails with it.
    const root = await h.store.plans.get(created.id);
    expect(root.status).toBe('failed');
    expect(root.error).toMatch(/re-plans were asked for \(failed verifications, executors\) 2 times \(maxReplans=1\)/);
    expect(root.result).toBe('No price list could be found.');
    expect(server.remaining()).toBe(0);
  });
});
