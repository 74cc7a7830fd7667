/**
 * The run report as GitHub-flavoured Markdown (`dotplan plan report`, the default format): a
 * summary, the review, the final answer or error, then tables of nodes, questions, revisions, LLM
 * calls and the timeline. Every value that comes from a plan is escaped so that it stays text and
 * stays in its table cell (`|`, line breaks, Markdown and HTML syntax); long values are cut.
 */
import type { RunReport } from './types.js';
import { cut, formatAttempts, formatMs, formatTime, moreNote, planDuration, wholeValues } from './text.js';
import { plural } from '../model/plural.js';

export function reportMarkdown(report: RunReport): string {
  const { plan } = report;
  const sections = [
    `# Run report: ${mdText(plan.title)}`,
    summary(report),
    review(report),
    ...(plan.result !== undefined ? [`## Final answer\n\n${fenced(plan.result)}`] : []),
    ...(plan.error !== undefined ? [`## Error\n\n${fenced(plan.error)}`] : []),
    nodes(report),
    questions(report),
    revisions(report),
    llmCalls(report),
    timeline(report),
  ];
  return `${sections.join('\n\n')}\n`;
}

function summary({ plan }: RunReport): string {
  const params = Object.entries(plan.params);
  return table(
    ['', ''],
    [
      ['Plan', code(plan.id)],
      ...(plan.goal !== undefined ? [['Goal', mdText(plan.goal)]] : []),
      ['Status', plan.status],
      ['Mode', mdText(plan.mode)],
      ...(plan.template !== undefined ? [['Template', mdText(plan.template)]] : []),
      ...(params.length > 0 ? [['Parameters', params.map(([k, v]) => `${code(k)} = ${mdText(v)}`).join('<br>')]] : []),
      ['Created', formatTime(plan.createdAt)],
      ['Updated', formatTime(plan.updatedAt)],
      ...(plan.endedAt !== undefined ? [['Ended', formatTime(plan.endedAt)]] : []),
      ['Duration', planDuration(plan.durationMs, plan.finished)],
      ['Revisions', String(plan.revision)],
    ],
  );
}

function review({ review }: RunReport): string {
  if (review.reviews.length === 0) return `## Review\n\nNot reviewed${review.required ? ' yet (review is required)' : ' (review not required)'}.`;
  return `## Review\n\n${table(
    ['Time', 'Decision', 'Who', 'Reason'],
    review.reviews.map((r) => [formatTime(r.at), mdText(r.decision), mdText(r.who), mdText(r.reason ?? '')]),
  )}`;
}

function nodes({ plan, nodes }: RunReport): string {
  const more = wholeValues.node(plan.id);
  const rows = nodes.map((n) => {
    const results = (['output', 'answer', 'error'] as const).filter((k) => n[k] !== undefined).map((k) => `**${k}:** ${shown(n[k]!, more)}`);
    return [
      code(n.id),
      mdText(n.label),
      n.type,
      n.status,
      formatAttempts(n.attempts, n.runs),
      n.input !== undefined ? shown(n.input, wholeValues.input(plan.id)) : '',
      results.join('<br>'),
      formatMs(n.durationMs),
    ];
  });
  return `## Nodes\n\n${table(['Node', 'Label', 'Type', 'Status', 'Attempts', 'Input', 'Output / answer / error', 'Duration'], rows)}`;
}

function questions({ plan, questions }: RunReport): string {
  if (questions.length === 0) return '## Questions\n\nThe plan asked no questions.';
  const more = wholeValues.node(plan.id);
  return `## Questions\n\n${table(
    ['Node', 'Question', 'Answer', 'Answered by', 'At'],
    questions.map((q) => [
      code(q.node),
      q.question !== undefined ? shown(q.question, more) : mdText(q.label),
      q.answer !== undefined ? shown(q.answer, more) : `_not answered (${q.status})_`,
      mdText(q.answeredBy ?? ''),
      q.answeredAt !== undefined ? formatTime(q.answeredAt) : '',
    ]),
  )}`;
}

function revisions({ plan, revisions }: RunReport): string {
  const more = wholeValues.revision(plan.id);
  return `## Revisions\n\n${table(
    ['Revision', 'Parent', 'Author', 'Who', 'Changes', 'At', 'Update log'],
    revisions.map((r) => [
      String(r.number),
      r.parent === undefined ? '-' : String(r.parent),
      r.author,
      mdText(r.who ?? '-'),
      r.changes === undefined ? '-' : String(r.changes),
      formatTime(r.at),
      r.updateLog !== undefined ? shown(r.updateLog, more) : '',
    ]),
  )}`;
}

function llmCalls({ llm }: RunReport): string {
  if (llm.calls.length === 0) return '## LLM calls\n\nNone.';
  const rows = llm.calls.map((c, i) => [
    String(i + 1),
    c.purpose,
    c.node !== undefined ? code(c.node) : '',
    mdText(c.model),
    `${c.promptTokens} + ${c.completionTokens}`,
    String(c.ms),
    c.outcome + (c.problems !== undefined ? ` (${plural(c.problems, 'problem')})` : ''),
  ]);
  const total = `Total: ${llm.totalTokens} tokens (${llm.promptTokens} prompt + ${llm.completionTokens} completion) in ${plural(llm.calls.length, 'call')}.`;
  return `## LLM calls\n\n${table(['#', 'Purpose', 'Node', 'Model', 'Tokens (prompt + completion)', 'ms', 'Outcome'], rows)}\n\n${total}`;
}

function timeline({ plan, timeline }: RunReport): string {
  const more = wholeValues.event(plan.id);
  return `## Timeline\n\n${table(
    ['Time', 'Node', 'Who', 'What', 'Why'],
    timeline.map((e) => [
      formatTime(e.at),
      e.node !== undefined ? code(e.node) : '_plan_',
      mdText(e.who),
      shown(e.what, more),
      e.reason !== undefined ? shown(e.reason, more) : '',
    ]),
  )}`;
}

/** A value as table-cell text, cut with a note saying where to read it whole. */
function shown(value: string, command: string): string {
  const { text, more } = cut(value);
  return more === 0 ? mdText(text) : `${mdText(text)} ${moreNote(more, command)}`;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * Plain text inside Markdown (a paragraph or a table cell): punctuation that Markdown or HTML would
 * read as syntax is backslash-escaped (so `|` does not end a cell and `<script>` is shown, not
 * parsed; `_` inside a word is left alone, as it cannot start emphasis), and line breaks become
 * `<br>` so that a value stays on its table row.
 */
export function mdText(value: string): string {
  return value
    .replace(/\r\n?/g, '\n')
    .replace(/[\\`*[\]<>|~#&!]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\$&')
    .replace(/\n/g, '<br>');
}

/** An identifier as inline code (fenced past any backticks it holds; `|` still escaped, as GFM tables require). */
function code(value: string): string {
  if (value === '' || /[\r\n]/.test(value)) return mdText(value);
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = value.startsWith('`') || value.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${value.replace(/\|/g, '\\|')}${pad}${fence}`;
}

/** A block shown exactly as written: a code fence longer than any backtick run inside. */
function fenced(value: string): string {
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${value.replace(/\r\n?/g, '\n')}\n${fence}`;
}
