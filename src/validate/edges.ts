import type { Diagnostic } from '../model/diagnostics.js';
import { parseWhen } from '../model/when.js';
import { q, type Check } from './context.js';

/** An edge's `when` condition must parse (see model/when.ts for the forms). */
export const checkEdges: Check = (ctx) => {
  const out: Diagnostic[] = [];
  for (const edge of ctx.graph.edges) {
    const when = edge.attributes['when'];
    if (when === undefined) continue;
    const parsed = parseWhen(when);
    if (parsed.ok) continue;
    out.push({
      code: 'WHEN_INVALID',
      severity: 'error',
      message: `when=${q(when)} on the edge ${q(edge.from)} -> ${q(edge.to)} cannot be read: ${parsed.reason}`,
      edge: { from: edge.from, to: edge.to },
      attribute: 'when',
      ...(edge.location ? { line: edge.location.line, column: edge.location.column } : {}),
      fix: 'write when="yes", when="yes|ok", when="!no" or a regular expression when="/^appr/i"',
    });
  }
  return out;
};
