import { ON_FAILURE, ON_REVIEW_TIMEOUT, PLAN_MODES, REVIEW, VERIFY } from '../model/attributes.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { parseParamDeclarations } from '../model/params.js';
import { q, type Check } from './context.js';
import { suggestFix } from './suggest.js';

const CHOICES: Readonly<Record<string, readonly string[]>> = {
  mode: PLAN_MODES,
  onFailure: ON_FAILURE,
  review: REVIEW,
  onReviewTimeout: ON_REVIEW_TIMEOUT,
  verify: VERIFY,
};

/** Reflection limits a plan may set over the configuration (`reflection.*`), with the least each allows. */
const LIMITS: Readonly<Record<string, number>> = { maxRewriteAttempts: 1, maxReplans: 0, maxTokens: 0, resultChars: 1 };

/** Plan-level settings: `mode`, `onFailure`, `review`, `onReviewTimeout`, `verify` take one of their values; the reflection limits are whole numbers; `params` parses. */
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
  for (const [attribute, least] of Object.entries(LIMITS)) {
    const value = attributes[attribute];
    if (value === undefined || (/^\d+$/.test(value.trim()) && Number(value) >= least)) continue;
    out.push({
      code: 'GRAPH_ATTRIBUTE_INVALID',
      severity: 'error',
      message: `graph attribute ${attribute}=${q(value)} is not a whole number of at least ${least}`,
      attribute,
      fix: `write ${attribute}="${least === 0 ? 0 : 3}"${attribute === 'maxTokens' ? ' (0: no budget)' : ''}, or leave it out to use the setting reflection.${attribute}`,
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
