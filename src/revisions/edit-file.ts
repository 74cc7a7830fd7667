import { leadingComments, leadingCommentsEnd, writeDot } from '../dot/index.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { Attributes, PlanGraph } from '../model/types.js';

/**
 * The file an operator edits (`plan show --format dot`, `plan edit`): the authored comment block of
 * the latest revision, a generated header, then the plan with its live fields and two graph
 * attributes that say what the edit is made from — `revision` (the revision shown) and
 * `asOfEvent` (the last event of the plan the live fields reflect). They are not part of the plan:
 * `plan apply` reads them to merge the edit three-way, `plan create` drops them.
 */
export interface EditBase {
  revision: number;
  /** Absent in a file written by hand: the live state is then taken as it is now. */
  asOfEvent?: number;
}

/** Graph attributes that say what an edit was made from. */
export const EDIT_BASE_ATTRIBUTES: readonly string[] = ['revision', 'asOfEvent'];

/** Lines dotplan writes into an edit file start with this; they are dropped when the file comes back. */
export const GENERATED_PREFIX = '// dotplan:';

export function editableDot(
  graph: PlanGraph,
  base: Required<EditBase> & { planId: string; comments: string; result?: string; template?: string; params?: Readonly<Record<string, string>> },
): string {
  const answer =
    base.result === undefined ? [] : [`${GENERATED_PREFIX} final answer:`, ...base.result.split('\n').map((line) => `${GENERATED_PREFIX}   ${line}`)];
  const header = [
    `${GENERATED_PREFIX} plan ${base.planId} at revision ${base.revision}. Edit, then: dotplan plan apply ${base.planId} <this file>`,
    `${GENERATED_PREFIX} status="ready" on a failed node retries it, status="skipped" skips one; revision and asOfEvent say what this edit is made from.`,
    ...paramsLine(base.template, base.params ?? {}),
  ];
  const attributes: Attributes = { revision: String(base.revision), asOfEvent: String(base.asOfEvent), ...withoutBase(graph.attributes) };
  const comments = authoredComments(base.comments);
  return `${[...header, ...answer].join('\n')}\n${withComments(comments, { ...graph, attributes })}`;
}

/** The values the plan was made with (the DOT keeps `{{params.x}}` references and the declaration, not the values). */
function paramsLine(template: string | undefined, params: Readonly<Record<string, string>>): string[] {
  const values = Object.entries(params).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  if (template !== undefined) return [`${GENERATED_PREFIX} made from template ${template}${values.length > 0 ? ` with ${values.join(', ')}` : ''}`];
  return values.length > 0 ? [`${GENERATED_PREFIX} parameter values: ${values.join(', ')}`] : [];
}

/** The graph's DOT under a comment block (a revision's text). */
export function withComments(comments: string | undefined, graph: PlanGraph): string {
  return `${comments ? `${comments}\n` : ''}${writeDot(graph)}`;
}

/** The comment block a text opens with, without the lines dotplan generated. */
export function authoredComments(text: string): string {
  return leadingComments(withoutGeneratedLines(text));
}

/** The text without the lines dotplan generated in its leading comment block (header, problems of an earlier try). */
export function withoutGeneratedLines(text: string): string {
  const end = leadingCommentsEnd(text);
  const head = text
    .slice(0, end)
    .split('\n')
    .filter((line) => !line.trimStart().startsWith(GENERATED_PREFIX));
  return `${head.join('\n')}${text.slice(end)}`.replace(/^\s*\n/, '');
}

/** The problems of a refused edit as `//` comments above the file's text. */
export function withProblems(text: string, problems: readonly string[]): string {
  const lines = [
    `${GENERATED_PREFIX} this edit was NOT applied; fix what is listed below and save again (save without changing anything to give up).`,
    ...problems.flatMap((p) => p.split('\n')).map((line) => `${GENERATED_PREFIX}   ${line}`),
  ];
  return `${lines.join('\n')}\n${withoutGeneratedLines(text)}`;
}

/** The graph attributes without `revision` and `asOfEvent`. */
export function withoutBase(attributes: Attributes): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([key]) => !EDIT_BASE_ATTRIBUTES.includes(key)));
}

/** What an edit says it was made from; a value that is not a number is an error naming the attribute and its line. */
export function readEditBase(attributes: Attributes, text: string): { base?: EditBase; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const number = (key: string): number | undefined => {
    const value = attributes[key];
    if (value === undefined) return undefined;
    if (/^[1-9]\d*$/.test(value) || (key === 'asOfEvent' && value === '0')) return Number(value);
    const line = lineOf(text, key);
    diagnostics.push({
      code: 'EDIT_BASE_INVALID',
      severity: 'error',
      message: `graph attribute ${key}=${JSON.stringify(value)} is not a number; it says what the edit was made from`,
      attribute: key,
      ...(line !== undefined ? { line } : {}),
      fix: `leave ${key} as \`dotplan plan show <id> --format dot\` wrote it, or delete it to take the edit against the latest revision`,
    });
    return undefined;
  };
  const revision = number('revision');
  const asOfEvent = number('asOfEvent');
  if (diagnostics.length > 0 || revision === undefined) return { diagnostics };
  return { base: asOfEvent === undefined ? { revision } : { revision, asOfEvent }, diagnostics };
}

function lineOf(text: string, key: string): number | undefined {
  const at = new RegExp(`(^|[\\s;{\\[,])${key}\\s*=`).exec(text);
  return at ? text.slice(0, at.index).split('\n').length + (at[1] === '\n' ? 1 : 0) : undefined;
}
