import { ON_FAILURE, PLAN_MODES, REVIEW, VERIFY } from '../model/attributes.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { parseParamDeclarations } from '../model/params.js';
import { q, type Check } from './context.js';
import { suggestFix } from './suggest.js';

const CHOICES: Readonly<Record<string, readonly string[]>> = { mode: PLAN_MODES, onFailure: ON_FAILURE, review: REVIEW, verify: VERIFY };

/** Plan-level settings: `mode`, `onFailure`, `review` take one of their values; `params` parses. */
export const checkGraphAttributes: Check = (ctx) => {
  const out: Diagnostic[] = [];
  const attributes = ctx.graph.attributes;
  for (const [attribute, allowed] of Object.entries(CHOICES)) {
    const value = attributes[attribute];
    if (value === undefined || allowed.includes(value)) continue;
    out.push({
      code: 'GRAPH_ATTRIBUTE_INVALID',
      severity: 'error',
      message: `graph attribute ${attribute}=${q(value)} is not allowed (allowed: ${allowed.join(', ')})`,
      attribute,
      fix: suggestFix(value, allowed, `write ${attribute}="${allowed[0]}"`),
    });
  }
  const params = parseParamDeclarations(attributes['params']);
  if (!params.ok) {
    out.push({
      code: 'PARAMS_INVALID',
      severity: 'error',
      message: `graph attribute params=${q(attributes['params'] ?? '')} cannot be read: ${params.reason}`,
      attribute: 'params',
      fix: 'declare parameters as params="topic,audience=general readers" (name, or name=default, separated by commas)',
    });
  }
  return out;
};
