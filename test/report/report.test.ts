import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectReport } from '../../src/report/collect.js';
import { reportMarkdown } from '../../src/report/markdown.js';
import { openHarness, type Harness } from '../store/harness.js';
import { testBackend } from '../support/db.js';
import { BUILD_ERROR, LONG_OUTPUT, markdownTable, runReleasePlan } from './run-plan.js';

describe(`plan report: Markdown (${testBackend()})`, () => {
  let h: Harness;
  beforeEach(async () => {
    h = await openHarness(testBackend());
  });
  afterEach(async () => {
    await h.close();
  });

  it('shows every node, every answer with who gave it, every revision with its author and update log', async () => {
    const id = await runReleasePlan(h);
    const md = reportMarkdown(await collectReport(h.ops, id));

    expect(md).toMatch(/^# Run report: Release 1\.2\n/);
    expect(md).toContain('| Goal | Ship release 1.2 \\| to staging |');
    expect(md).toContain('| Status | completed |');
    expect(md).toMatch(/\| Duration \| [\d.]+m?s \|/);
    expect(md).toContain('Not reviewed (review not required).');

    const nodes = markdownTable(md, '## Nodes');
    expect(nodes[0]).toEqual(['Node', 'Label', 'Type', 'Status', 'Attempts', 'Input', 'Output / answer / error', 'Duration']);
    const byId = new Map(nodes.slice(2).map((r) => [r[0], r]));
    expect([...byId.keys()].sort()).toEqual(['`approve`', '`build`', '`fetch`', '`publish`']);
    for (const row of byId.values()) expect(row[3]).toBe('done');
    expect(byId.get('`fetch`')![5]).toBe('{"url": "https://example.com/changes"}');
    expect(byId.get('`approve`')![6]).toBe('**answer:** yes, ship it');
    expect(byId.get('`build`')![6]).toBe('**output:** built');
    expect(byId.get('`build`')![4]).toBe('1 (2 runs in all)'); // failed, then retried by the operator: its attempts start afresh
    expect(byId.get('`publish`')![1]).toBe('Publish \\<script\\>document.title = "label"\\</script\\>');
    expect(byId.get('`publish`')![5]).toBe('publish to staging'); // the hand edit's input
    expect(byId.get('`fetch`')![7]).toMatch(/^[\d.]+m?s$/); // from its running event to its done event

    const questions = markdownTable(md, '## Questions');
    expect(questions.slice(2).map((r) => r.slice(0, 4))).toEqual([['`approve`', 'Ship release 1.2?', 'yes, ship it', 'person:alice']]);

    const revisions = markdownTable(md, '## Revisions');
    expect(revisions[0]).toEqual(['Revision', 'Parent', 'Author', 'Who', 'Changes', 'At', 'Update log']);
    expect(revisions).toHaveLength(4);
    expect(revisions[2]!.slice(0, 2)).toEqual(['1', '-']);
    expect(revisions[3]).toEqual(['2', '1', 'operator', 'operator:carol', '1', expect.stringMatching(/ UTC$/), 'publish to staging first']);

    // The failed attempt and the operator's retry are in the timeline, with who and why.
    const timeline = markdownTable(md, '## Timeline').slice(2);
    expect(timeline).toContainEqual([expect.any(String), '`build`', 'engine:w1', 'running → failed', expect.stringContaining('Error 2')]);
    expect(timeline).toContainEqual([expect.any(String), '`build`', 'operator:bob', 'failed → ready', 'the build machine is back']);
    expect(timeline).toContainEqual([expect.any(String), '`approve`', 'person:alice', 'answer: yes, ship it', '']);
    expect(timeline.at(-1)!.slice(1, 4)).toEqual(['_plan_', 'engine', 'running → completed']);

    expect(md).toContain('Total: 150 tokens (120 prompt + 30 completion) in 1 call.');
    expect(markdownTable(md, '## LLM calls')[2]).toEqual(['1', 'verify', '`publish`', 'gpt-test', '120 + 30', '42', 'ok']);
  });

  it('cuts long values with a note saying how much is left and where to read it, and keeps `|` and line breaks inside their cell', async () => {
    const id = await runReleasePlan(h);
    const report = await collectReport(h.ops, id);
    expect(report.nodes.find((n) => n.id === 'fetch')!.output).toBe(LONG_OUTPUT); // the data keeps the value whole
    const md = reportMarkdown(report);

    const fetch = markdownTable(md, '## Nodes').find((r) => r[0] === '`fetch`')!;
    const note = `… (113 more characters; see \`dotplan plan show ${id} --format json\`)`;
    expect(fetch[6]).toBe(`**output:** first\\|second<br>${'x'.repeat(287)} ${note}`);
    // Every row of every table has as many cells as its header: no value broke out of its cell.
    for (const heading of ['## Nodes', '## Questions', '## Revisions', '## LLM calls', '## Timeline']) {
      const rows = markdownTable(md, heading);
      expect(rows.length).toBeGreaterThan(2);
      for (const row of rows) expect(row, `${heading}: ${row.join(' | ')}`).toHaveLength(rows[0]!.length);
    }
    // The error of the failed attempt stays in the timeline, escaped.
    expect(md).toContain(BUILD_ERROR.replace(/[*[\]]/g, '\\$&'));
    // HTML in a value is shown as text by a Markdown viewer, not parsed.
    expect(md).toContain('\\<script\\>document.title = "pwned"\\</script\\>');
    expect(md).not.toContain('<script>');
  });

  it('says who reviewed the plan: an approval with its reason, once', async () => {
    const plan = await h.ops.create({ dot: 'digraph r { review="required" a [type=function toolCode=echo toolInput="hi"] }' }, { by: 'paul' });
    expect(reportMarkdown(await collectReport(h.ops, plan.id))).toContain('Not reviewed yet (review is required).');
    await h.ops.approve(plan.id, { by: 'rita', reason: 'looks | right' });
    const report = await collectReport(h.ops, plan.id);
    expect(report.review.reviews).toEqual([
      expect.objectContaining({ decision: 'approved', driver: 'person', actor: 'rita', who: 'person:rita', reason: 'looks | right' }),
    ]);
    const rows = markdownTable(reportMarkdown(report), '## Review');
    expect(rows.slice(2)).toEqual([[expect.stringMatching(/ UTC$/), 'approved', 'person:rita', 'looks \\| right']]);
  });

  it('counts a plan taken out of review by an operator as its review', async () => {
    const plan = await h.ops.create({ dot: 'digraph r { review="required" a [type=function toolCode=echo toolInput="hi"] }' });
    await h.ops.cancel(plan.id, { by: 'dana', reason: 'superseded by r2' });
    const rows = markdownTable(reportMarkdown(await collectReport(h.ops, plan.id)), '## Review');
    expect(rows.slice(2)).toEqual([[expect.stringMatching(/ UTC$/), 'cancelled', 'operator:dana', 'superseded by r2']]);
  });

  it('shows the input each node ran with, references resolved (cut like outputs), and lists the nodes in graph order', async () => {
    // Declared in an order that is not the graph's: each node comes after the one it waits for in the report.
    const plan = await h.ops.create({
      dot: `digraph inputs {
        onFailure="continue"
        greet  [type=function toolCode=echo toolInput="greeting {{nodes.first.output}}"]
        broken [type=function toolCode=json toolInput="{\\"pick\\": \\"missing\\", \\"from\\": \\"{{nodes.first.output}}\\"}"]
        long   [type=function toolCode=echo toolInput="{{nodes.first.output}} {{nodes.wide.output}}"]
        first  [type=function toolCode=echo toolInput="hello"]
        wide   [type=function toolCode=echo toolInput="${'w'.repeat(400)}"]
        first -> greet; first -> broken; first -> long; wide -> long
      }`,
    });
    const worker = h.ops.worker({ untilIdle: true }).start();
    await worker.idle;
    await worker.stop();

    const report = await collectReport(h.ops, plan.id);
    expect(report.nodes.map((n) => n.id)).toEqual(['first', 'greet', 'broken', 'wide', 'long']);
    const input = (id: string) => report.nodes.find((n) => n.id === id)!.input;
    expect(input('first')).toBe('hello'); // no reference: as written
    expect(input('greet')).toBe('greeting hello');
    expect(input('broken')).toBe('{"pick":"missing","from":"hello"}'); // a failed attempt's input too
    expect(report.nodes.find((n) => n.id === 'broken')!.status).toBe('failed');
    expect(input('long')).toBe(`hello ${'w'.repeat(400)}`); // the data keeps it whole

    const rows = markdownTable(reportMarkdown(report), '## Nodes').slice(2);
    expect(rows.map((r) => r[0])).toEqual(['`first`', '`greet`', '`broken`', '`wide`', '`long`']);
    expect(rows[1]![5]).toBe('greeting hello');
    expect(rows[4]![5]).toBe(`hello ${'w'.repeat(294)} … (106 more characters; see \`dotplan plan report ${plan.id} --format json\`)`);
  });

  it('refuses a plan id that does not exist, naming it', async () => {
    await expect(collectReport(h.ops, 'p_nope')).rejects.toThrow(/p_nope/);
  });
});
