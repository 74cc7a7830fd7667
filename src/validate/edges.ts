import type { Diagnostic } from '../model/diagnostics.js';
import { parseWhen } from '../model/when.js';
import { patternOverLimits } from '../model/when-limits.js';
import { q, type Check } from './context.js';

/** An edge's `when` condition must parse (see model/when.ts for the forms), a regular expression within the limits of model/when-limits.ts. */
export const checkEdges: Check = (ctx) => {
  const out: Diagnostic[] = [];
  for (const edge of ctx.graph.edges) {
    const when = edge.attributes['when'];
    if (when === undefined) continue;
    const parsed = parseWhen(when);
    const where = {
      edge: { from: edge.from, to: edge.to },
      attribute: 'when',
      ...(edge.location ? { line: edge.location.line, column: edge.location.column } : {}),
    };
    if (parsed.ok) {
      const { condition } = parsed;
      const over = condition.kind === 'regex' ? patternOverLimits(condition.source, condition.regex.programSize()) : undefined;
      if (over === undefined) continue;
      out.push({
        code: 'WHEN_TOO_COMPLEX',
        severity: 'error',
        message: `when=${q(when)} on the edge ${q(edge.from)} -> ${q(edge.to)} is too complex to match quickly: ${over}`,
        ...where,
        fix: 'simplify the pattern: match a short marker in the output (when="/^approved/i") instead of its whole shape, and avoid repeating groups that hold .* or +',
      });
      continue;
    }
    out.push({
      code: 'WHEN_INVALID',
      severity: 'error',
      message: `when=${q(when)} on the edge ${q(edge.from)} -> ${q(edge.to)} cannot be read: ${parsed.reason}`,
      ...where,
      fix: 'write when="yes", when="yes|ok", when="!no" or a regular expression when="/^appr/i"',
    });
  }
  return out;
};
