import { formatDiagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { InboxEntry } from '../operations/inbox.js';
import { toolCall } from './context.js';

/**
 * The text the tools return, one fact a line: a diagnostic with its place and fix, a waiting
 * question or review with the call that answers it. The JSON beside it (`structuredContent`)
 * carries the same facts whole.
 */

/** `line 3: error TYPE_UNKNOWN: … [node "b", attribute type]. Fix: …` (the source first when it names one, `template approval, line 3: …`). */
export function diagnosticLine(d: Diagnostic, source?: string): string {
  const place = [source, d.line !== undefined ? `line ${d.line}` : undefined].filter(Boolean).join(', ');
  const { line: _line, ...rest } = d;
  return `${place ? `${place}: ` : ''}${formatDiagnostic(rest)}`;
}

/** How a waiting question or review is acted on over MCP. */
export function inboxCalls(entry: Pick<InboxEntry, 'kind' | 'planId' | 'nodeId' | 'options'>): string[] {
  if (entry.kind === 'review')
    return [toolCall('approve_review', { planId: entry.planId }), toolCall('reject_review', { planId: entry.planId, reason: '<why>' })];
  return [toolCall('answer_question', { planId: entry.planId, nodeId: entry.nodeId ?? '', answer: entry.options?.[0] ?? '<your answer>' })];
}

/** One inbox entry as text: what waits, since when, the options, and the call that answers it. */
export function inboxText(entry: InboxEntry): string {
  const waited = `waiting ${Math.round(entry.waitedMs / 1000)} s`;
  const where = `plan ${entry.planId} "${entry.planTitle}"`;
  const lines =
    entry.kind === 'review'
      ? [`- review of ${where} (${waited}): approve it to run it, or reject it with a reason`]
      : [
          `- question at node ${entry.nodeId ?? '?'} of ${where}${entry.path ? ` (${entry.path})` : ''} (${waited}): ${shown(entry.question ?? '(no question text)', 1000)}`,
          `  options: ${entry.options && entry.options.length > 0 ? entry.options.join(', ') : 'any text (the node lists no options)'}`,
        ];
  return [...lines, ...inboxCalls(entry).map((call) => `  call: ${call}`)].join('\n');
}

/** At most `limit` characters of a value for the text (the JSON keeps it whole), with a note saying how much was left out. */
export function shown(value: string, limit = 500): string {
  const chars = Array.from(value);
  if (chars.length <= limit) return value;
  return `${chars.slice(0, limit).join('')}… (${chars.length - limit} more characters, whole in structuredContent)`;
}
