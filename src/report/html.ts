/**
 * The run report as one self-contained HTML page (`dotplan plan report --format html`): inline CSS,
 * the plan drawn as inline SVG coloured by status (the renderer `dotplan render --plan` uses), and
 * the same sections as the Markdown report. Nothing is loaded from elsewhere and nothing runs: the
 * page has no script, its Content-Security-Policy forbids any, and every value that comes from a
 * plan is HTML-escaped.
 */
import type { PlanGraph } from '../model/types.js';
import { NODE_STATUSES } from '../model/types.js';
import { drawPlan, type ChildMark } from '../render/index.js';
import { REPORT_CSS } from './html-style.js';
import { cut, formatAttempts, formatMs, formatTime, moreNote, planDuration, wholeValues } from './text.js';
import type { RunReport } from './types.js';
import { plural } from '../model/plural.js';

/** A plan below the report's plan (an agent node's child): a section of its own, after the plan's. */
export interface ChildSection {
  /** The section's heading: which instance ran it, for which node of which plan. */
  heading: string;
  report: RunReport;
  /** The child plan with its live state. */
  graph: PlanGraph;
  /** Its own agent nodes' children (drawn under those nodes). */
  marks?: ReadonlyMap<string, ChildMark>;
}

/**
 * The page, with `graph` (the plan with its live state: `Dotplan.liveGraph`) drawn in it; a plan too
 * large to draw, or one Graphviz fails on, is shown as the drawing's note says (counts by status, or
 * no picture), and the rest of the report is the same. `marks`: the plan's agent nodes' children,
 * drawn under those nodes; `children`: the plans below it, a section each (with its own drawing).
 */
export async function reportHtml(
  report: RunReport,
  graph: PlanGraph,
  marks?: ReadonlyMap<string, ChildMark>,
  children: readonly ChildSection[] = [],
): Promise<string> {
  const drawing = await drawPlan(graph, { legend: false, ...(marks ? { children: marks } : {}) });
  const below: string[] = [];
  for (const child of children) {
    const own = await drawPlan(child.graph, { legend: false, ...(child.marks ? { children: child.marks } : {}) });
    const id = `child-${child.report.plan.id}`;
    // Its sections keep their ids, made unique on the page by the child's id (the drawing's too).
    const parts = planSections(child.report, inlineSvg(own.svg), own.note).map((part) => part.replace(/ id="/g, ` id="${esc(id)}-`));
    below.push(`<section class="child-plan" id="${esc(id)}"><h2>${esc(child.heading)}</h2>\n${parts.join('\n')}</section>`);
  }
  return reportPage(report, inlineSvg(drawing.svg), drawing.note, below);
}

/** The page around an SVG drawing already made (inline SVG markup, trusted), with the drawing's note if it has one, and child sections already made. */
export function reportPage(report: RunReport, svg: string, note?: string, below: readonly string[] = []): string {
  const title = `Run report: ${report.plan.title}`;
  const body = [`<h1>${esc(title)}</h1>`, ...planSections(report, svg, note), ...below];
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
${body.join('\n')}
</body>
</html>
`;
}

/** One plan's sections: summary, drawing, review, answer or error, nodes, questions, revisions, LLM calls, timeline. */
function planSections(report: RunReport, svg: string, note?: string): string[] {
  const { plan } = report;
  return [
    summary(report),
    `<section id="graph"><h2>Plan</h2>${note !== undefined ? `<p class="note">${esc(capitalised(note))}.</p>` : ''}<div class="graph">${svg}</div>${legend(report)}</section>`,
    review(report),
    plan.result !== undefined ? `<section id="result"><h2>Final answer</h2><pre>${esc(plan.result)}</pre></section>` : '',
    plan.error !== undefined ? `<section id="error"><h2>Error</h2><pre>${esc(plan.error)}</pre></section>` : '',
    nodes(report),
    questions(report),
    revisions(report),
    llmCalls(report),
    timeline(report),
  ].filter((part) => part !== '');
}

/** Graphviz's SVG document as an element to place in the page: without its XML prolog, doctype and comments. */
export function inlineSvg(svg: string): string {
  const start = svg.indexOf('<svg');
  return (start < 0 ? svg : svg.slice(start)).replace(/<!--[\s\S]*?-->/g, '').trim();
}

function summary({ plan }: RunReport): string {
  const params = Object.entries(plan.params);
  const rows: Array<[string, string]> = [
    ['Plan', `<code>${esc(plan.id)}</code>`],
    ...(plan.goal !== undefined ? [['Goal', esc(plan.goal)] as [string, string]] : []),
    ['Status', `<span class="badge plan-status">${esc(plan.status)}</span>`],
    ['Mode', esc(plan.mode)],
    ...(plan.template !== undefined ? [['Template', esc(plan.template)] as [string, string]] : []),
    ...(params.length > 0 ? [['Parameters', params.map(([k, v]) => `<code>${esc(k)}</code> = ${esc(v)}`).join('<br>')] as [string, string]] : []),
    ['Created', esc(formatTime(plan.createdAt))],
    ['Updated', esc(formatTime(plan.updatedAt))],
    ...(plan.endedAt !== undefined ? [['Ended', esc(formatTime(plan.endedAt))] as [string, string]] : []),
    ['Duration', esc(planDuration(plan.durationMs, plan.finished))],
    ['Revisions', String(plan.revision)],
  ];
  return `<section id="summary"><dl class="summary">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl></section>`;
}

function legend({ nodes }: RunReport): string {
  const used = NODE_STATUSES.filter((s) => nodes.some((n) => n.status === s));
  return used.length === 0 ? '' : `<ul class="legend">${used.map((s) => `<li>${status(s)}</li>`).join('')}</ul>`;
}

function review({ review }: RunReport): string {
  if (review.reviews.length === 0)
    return `<section id="review"><h2>Review</h2><p class="none">Not reviewed${review.required ? ' yet (review is required)' : ' (review not required)'}.</p></section>`;
  return section(
    'review',
    'Review',
    table(
      ['Time', 'Decision', 'Who', 'Reason'],
      review.reviews.map((r) => [time(r.at), td(esc(r.decision)), td(esc(r.who)), td(esc(r.reason ?? ''), 'value')]),
    ),
  );
}

function nodes({ plan, nodes }: RunReport): string {
  const more = wholeValues.node(plan.id);
  const rows = nodes.map((n) => {
    const results = (['output', 'answer', 'error'] as const)
      .filter((k) => n[k] !== undefined)
      .map((k) => `<span class="label">${k}:</span> ${shown(n[k]!, more)}`);
    return [
      td(`<code>${esc(n.id)}</code>`),
      td(esc(n.label)),
      td(esc(n.type)),
      td(status(n.status)),
      td(formatAttempts(n.attempts, n.runs), 'num'),
      td(n.input !== undefined ? shown(n.input, wholeValues.input(plan.id)) : '', 'value'),
      td(results.join('\n'), 'value'),
      td(esc(formatMs(n.durationMs)), 'num'),
    ];
  });
  return section('nodes', 'Nodes', table(['Node', 'Label', 'Type', 'Status', 'Attempts', 'Input', 'Output / answer / error', 'Duration'], rows));
}

function questions({ plan, questions }: RunReport): string {
  if (questions.length === 0) return `<section id="questions"><h2>Questions</h2><p class="none">The plan asked no questions.</p></section>`;
  const more = wholeValues.node(plan.id);
  const rows = questions.map((q) => [
    td(`<code>${esc(q.node)}</code>`),
    td(q.question !== undefined ? shown(q.question, more) : esc(q.label), 'value'),
    td(q.answer !== undefined ? shown(q.answer, more) : `<span class="none">not answered (${esc(q.status)})</span>`, 'value answer'),
    td(esc(q.answeredBy ?? ''), 'answered-by'),
    q.answeredAt !== undefined ? time(q.answeredAt) : td(''),
  ]);
  return section('questions', 'Questions', table(['Node', 'Question', 'Answer', 'Answered by', 'At'], rows));
}

function revisions({ plan, revisions }: RunReport): string {
  const more = wholeValues.revision(plan.id);
  const rows = revisions.map((r) => [
    td(String(r.number), 'num'),
    td(r.parent === undefined ? '-' : String(r.parent), 'num'),
    td(esc(r.author)),
    td(esc(r.who ?? '-')),
    td(r.changes === undefined ? '-' : String(r.changes), 'num'),
    time(r.at),
    td(r.updateLog !== undefined ? shown(r.updateLog, more) : '', 'value'),
  ]);
  return section('revisions', 'Revisions', table(['Revision', 'Parent', 'Author', 'Who', 'Changes', 'At', 'Update log'], rows));
}

function llmCalls({ llm }: RunReport): string {
  if (llm.calls.length === 0) return `<section id="llm"><h2>LLM calls</h2><p class="none">None.</p></section>`;
  const rows = llm.calls.map((c, i) => [
    td(String(i + 1), 'num'),
    td(esc(c.purpose)),
    td(c.node !== undefined ? `<code>${esc(c.node)}</code>` : ''),
    td(esc(c.model)),
    td(`${c.promptTokens} + ${c.completionTokens}`, 'num'),
    td(String(c.ms), 'num'),
    td(esc(c.outcome + (c.problems !== undefined ? ` (${plural(c.problems, 'problem')})` : ''))),
  ]);
  const total = `<p>Total: ${llm.totalTokens} tokens (${llm.promptTokens} prompt + ${llm.completionTokens} completion) in ${plural(llm.calls.length, 'call')}.</p>`;
  return section('llm', 'LLM calls', table(['#', 'Purpose', 'Node', 'Model', 'Tokens (prompt + completion)', 'ms', 'Outcome'], rows) + total);
}

function timeline({ plan, timeline }: RunReport): string {
  const more = wholeValues.event(plan.id);
  const rows = timeline.map((e) => [
    time(e.at),
    td(e.node !== undefined ? `<code>${esc(e.node)}</code>` : '<span class="none">plan</span>'),
    td(esc(e.who)),
    td(shown(e.what, more), 'value'),
    td(e.reason !== undefined ? shown(e.reason, more) : '', 'value'),
  ]);
  return section('timeline', 'Timeline', table(['Time', 'Node', 'Who', 'What', 'Why'], rows));
}

function section(id: string, heading: string, content: string): string {
  return `<section id="${id}"><h2>${heading}</h2>${content}</section>`;
}

/** Cells are markup already (`td`, `time`). */
function table(header: string[], rows: string[][]): string {
  return `<table><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.join('')}</tr>`).join('')}</tbody></table>`;
}

function td(html: string, className?: string): string {
  return className ? `<td class="${className}">${html}</td>` : `<td>${html}</td>`;
}

function time(iso: string): string {
  return `<td class="time"><time datetime="${esc(iso)}">${esc(formatTime(iso))}</time></td>`;
}

function status(value: string): string {
  return `<span class="badge status-${esc(value)}">${esc(value)}</span>`;
}

/** A value, escaped and cut, with the note saying where to read it whole. */
function shown(value: string, command: string): string {
  const { text, more } = cut(value);
  if (more === 0) return esc(text);
  const note = esc(moreNote(more, command)).replace(/`([^`]*)`/g, '<code>$1</code>');
  return `${esc(text)} <span class="more">${note}</span>`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Text as HTML: the five characters that markup reads escaped. */
export function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
