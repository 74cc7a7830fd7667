/**
 * dotplan calling dotplan over A2A: one dotplan's agent node hands its task to another dotplan's
 * `serve` (the agent card, JSON-RPC at /v1/a2a, a bearer token), whose template skill makes a plan
 * there; that plan's question comes back as the node's own question, the answer given here goes back
 * and answers it there, and the other plan's result is this node's output. Both sides as a user runs
 * them (listening on loopback), each on its own database.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/http/server.js';
import type { Worker } from '../../src/worker/worker.js';
import { openTestDotplan, type TestDotplan } from '../api/open.js';
import { waitUntil } from '../support/wait.js';

describe('dotplan calling dotplan over A2A', () => {
  const opened: TestDotplan[] = [];
  const workers: Worker[] = [];
  let server: RunningServer | undefined;
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await server?.stop();
    server = undefined;
    for (const t of opened.splice(0)) await t.cleanup();
    delete process.env.DOTPLAN_TEST_PEER_TOKEN;
  });

  it("an agent node's task becomes a plan of the other dotplan; its question is answered here; its result is the node's output", async () => {
    const peer = await openTestDotplan({ config: { worker: { poll: '*/1 * * * * *' } } });
    opened.push(peer);
    const { secret } = await peer.dotplan.tokens.create({ name: 'caller', scope: 'operate' });
    server = await listen(peer.dotplan, { host: '127.0.0.1', port: 0 }, { ui: false });
    workers.push(peer.dotplan.worker().start());

    process.env.DOTPLAN_TEST_PEER_TOKEN = secret;
    const here = await openTestDotplan({
      config: {
        agents: [{ code: 'peer', kind: 'a2a', description: 'another dotplan', url: server.url, auth: { bearer: 'env:DOTPLAN_TEST_PEER_TOKEN' } }],
        worker: { poll: '*/1 * * * * *' },
      },
    });
    opened.push(here);
    const plan = await here.dotplan.create({
      dot: `digraph p { order [type=agent agentCode=peer task="Order equipment" agentParams="{\\"skill\\": \\"approval\\", \\"item\\": \\"a laptop\\", \\"requester\\": \\"Ana\\"}"] }`,
    });
    workers.push(here.dotplan.worker().start());

    // The other dotplan's approval question, asked here.
    const question = await waitUntil(async () => (await here.dotplan.inbox()).find((e) => e.planId === plan.id), "the peer's question here", 60_000);
    expect(question.question).toContain('Ana asks for a laptop (amount: unspecified). Approve? (yes/no)');
    // There, a plan made from the template, waiting on its confirm node.
    const [theirs] = (await peer.dotplan.plans()).filter((p) => p.template === 'approval');
    expect(theirs).toBeDefined();
    expect((await peer.dotplan.node(theirs!.id, 'approve')).status).toBe('awaiting_input');

    await here.dotplan.answer(plan.id, 'order', 'yes', { by: 'ana' });
    await waitUntil(async () => ['completed', 'failed'].includes((await here.dotplan.plan(plan.id)).status) || undefined, 'the plan here to end', 60_000);
    expect((await here.dotplan.plan(plan.id)).status).toBe('completed');
    // There: answered by the caller's token, the approved branch taken.
    expect(await peer.dotplan.node(theirs!.id, 'approve')).toMatchObject({ status: 'done', answer: 'yes' });
    const answered = (await peer.dotplan.events.list({ planId: theirs!.id, kind: 'answer' }))[0];
    expect(answered).toMatchObject({ driver: 'person', actor: 'caller' });
    expect((await peer.dotplan.plan(theirs!.id)).status).toBe('completed');
    // Here: the other plan's end nodes' outputs.
    expect((await here.dotplan.node(plan.id, 'order')).output).toContain(
      'To Ana: your request (Ana asks for a laptop (amount: unspecified).) was answered: yes.',
    );
  });
});
