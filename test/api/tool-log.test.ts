/**
 * A tool's `ctx.log(message)`: to the worker's `log` option when one is given (nothing stored), else
 * a `log` event on the plan — in the audit log with the node, the attempt and the worker, before the
 * node's end. A CLI worker records them (it passes no `log`), so `plan events` and its progress show them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDotplan } from '../support/cli.js';
import type { Tool } from '../../src/tools/types.js';
import { openTestDotplan, type TestDotplan } from './open.js';

const chatty: Tool = {
  code: 'chatty',
  run: (input, ctx) => {
    ctx.log(`starting attempt ${ctx.attempt}`);
    ctx.log('half way');
    return 'said it';
  },
};
const PLAN =
  'digraph g { talk [type=function status=pending toolCode=chatty] after [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"ok\\"}"] talk -> after }';

let t: TestDotplan | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

describe("a tool's ctx.log", () => {
  it("goes to the worker's log option, with the plan, node and attempt; nothing is stored", async () => {
    t = await openTestDotplan({ tools: [chatty] });
    const plan = await t.dotplan.create({ dot: PLAN });
    const logged: unknown[] = [];
    const worker = t.dotplan.worker({ untilIdle: true, log: (entry) => logged.push(entry) }).start();
    await worker.idle;
    expect(logged).toEqual([
      { planId: plan.id, nodeId: 'talk', attempt: 1, message: 'starting attempt 1' },
      { planId: plan.id, nodeId: 'talk', attempt: 1, message: 'half way' },
    ]);
    expect(await t.dotplan.events.list({ planId: plan.id, kind: 'log' })).toEqual([]);
  });

  it('without a log option, is a log event on the plan, in order, before the node is done', async () => {
    t = await openTestDotplan({ tools: [chatty] });
    const plan = await t.dotplan.create({ dot: PLAN });
    const worker = t.dotplan.worker({ untilIdle: true }).start();
    await worker.idle;
    const events = await t.dotplan.events.list({ planId: plan.id });
    const logs = events.filter((e) => e.kind === 'log');
    expect(logs).toMatchObject([
      { nodeId: 'talk', driver: 'engine', actor: worker.owner, reason: 'starting attempt 1', detail: { attempt: 1 } },
      { nodeId: 'talk', driver: 'engine', actor: worker.owner, reason: 'half way', detail: { attempt: 1 } },
    ]);
    const done = events.find((e) => e.nodeId === 'talk' && e.to === 'done')!;
    expect(logs.every((e) => e.id < done.id)).toBe(true);
  });

  it('a CLI worker records them: plan events lists them', async () => {
    t = await openTestDotplan();
    const tools = join(t.dir, 'chatty.mjs');
    writeFileSync(tools, `export default [{ code: 'chatty', run: (input, ctx) => { ctx.log('from the cli worker'); return 'ok'; } }];\n`);
    const db = ['--db', t.url, '--tools', tools];
    writeFileSync(join(t.dir, 'plan.dot'), PLAN);
    const created = await runDotplan(['plan', 'create', '--dot', join(t.dir, 'plan.dot'), ...db]);
    expect(created.code).toBe(0);
    const planId = created.stdout.trim();
    const worker = await runDotplan(['worker', '--until-idle', ...db]);
    expect(worker.code).toBe(0);
    expect(worker.stderr).toMatch(/node talk\s+\[log\] by engine .*from the cli worker/);
    const listed = await runDotplan(['plan', 'events', planId, '--json', ...db]);
    expect(listed.code).toBe(0);
    const events = JSON.parse(listed.stdout) as Array<{ kind: string; nodeId?: string; reason?: string }>;
    expect(events.filter((e) => e.kind === 'log')).toMatchObject([{ nodeId: 'talk', reason: 'from the cli worker' }]);
  });
});
