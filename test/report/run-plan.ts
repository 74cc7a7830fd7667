/**
 * A plan run for the report tests, through the real store and use cases: a function node with a
 * long output holding `|` and a line break, a question answered by a person, a node that fails and
 * is retried by an operator, a hand-edit revision, an LLM call on record, and a label and an output
 * holding a `<script>` element.
 */
import type { Harness } from '../store/harness.js';

export const PUBLISH_LABEL = 'Publish <script>document.title = "label"</script>';

export const DOT = `digraph release {
  label="Release 1.2"
  goal="Ship release 1.2 | to staging"
  node [type=function status=pending]
  fetch   [label="Fetch the change list" toolCode=echo toolInput="{\\"url\\": \\"https://example.com/changes\\"}"]
  approve [label="Ship it?" type=confirm shape=ellipse question="Ship release 1.2?"]
  build   [label="Build" toolCode=echo toolInput="make release"]
  publish [label="${PUBLISH_LABEL.replace(/"/g, '\\"')}" toolCode=echo toolInput="publish to prod"]
  fetch -> approve -> build -> publish
}`;

/** 413 characters: the report shows 300 of them. */
export const LONG_OUTPUT = `first|second\n${'x'.repeat(400)}`;
export const SCRIPT_OUTPUT = '<script>document.title = "pwned"</script>';
export const BUILD_ERROR = 'make: *** [release] Error 2';

export async function runReleasePlan(h: Harness): Promise<string> {
  const plan = await h.ops.create({ dot: DOT, source: 'release.dot' }, { by: 'paul' });
  const id = plan.id;
  await h.finish(await h.claim(id, 'fetch'), { kind: 'done', output: LONG_OUTPUT });
  await h.finish(await h.claim(id, 'approve'), { kind: 'asked' });
  await h.ops.answer(id, 'approve', 'yes, ship it', { by: 'alice' });
  await h.finish(await h.claim(id, 'build'), { kind: 'failed', error: BUILD_ERROR, retryable: true });
  await h.ops.retry(id, 'build', { by: 'bob', reason: 'the build machine is back' });
  const edited = (await h.ops.show(id)).replace('publish to prod', 'publish to staging');
  const applied = await h.ops.apply(id, edited, { by: 'carol', reason: 'publish to staging first' });
  if (!applied.applied) throw new Error(`the hand edit was refused: ${JSON.stringify(applied)}`);
  await h.finish(await h.claim(id, 'build'), { kind: 'done', output: 'built' });
  await h.finish(await h.claim(id, 'publish'), { kind: 'done', output: SCRIPT_OUTPUT });
  await h.store.llm.record({
    planId: id,
    nodeId: 'publish',
    purpose: 'verify',
    model: 'gpt-test',
    prompt: '[]',
    reply: '{"is_successful": true}',
    promptTokens: 120,
    completionTokens: 30,
    ms: 42,
    outcome: 'ok',
  });
  return id;
}

/** The rows of the Markdown table that follows `heading`, each split into its cells at the `|` that are not escaped. */
export function markdownTable(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no ${heading} in:\n${markdown}`);
  const lines = markdown.slice(start + heading.length + 2).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    rows.push(splitRow(line));
  }
  return rows;
}

function splitRow(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 1; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) {
      cell += c + line[i + 1]!;
      i++;
    } else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  return cells;
}
