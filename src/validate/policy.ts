import { BOOLEAN, durationSchema, retriesSchema, VERIFY } from '../model/attributes.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { Attributes } from '../model/types.js';
import { atNode, q, type Check } from './context.js';

/** A node's `verify` and `multiple` take one of their values; `retries` is a non-negative integer and the durations (retryDelay, timeout, remindEvery, answerTimeout, reviewTimeout) are durations, on nodes and on the graph. */
export const checkPolicy: Check = (ctx) => {
  const out: Diagnostic[] = [];
  check(ctx.graph.attributes, 'the plan (graph attribute)', {}, out);
  for (const node of ctx.graph.nodes) check(node.attributes, `node ${q(node.id)}`, atNode(node), out);
  return out;
};

const DURATIONS = ['retryDelay', 'timeout', 'remindEvery', 'answerTimeout', 'reviewTimeout'] as const;

/** Node attributes that take one of a few values (the graph's `verify` is checked with the graph's settings). */
const NODE_CHOICES: Readonly<Record<string, readonly string[]>> = { verify: VERIFY, multiple: BOOLEAN };

function check(attributes: Attributes, owner: string, where: Partial<Diagnostic>, out: Diagnostic[]): void {
  if (where.node !== undefined) {
    for (const [attribute, allowed] of Object.entries(NODE_CHOICES)) {
      const value = attributes[attribute];
      if (value === undefined || allowed.includes(value)) continue;
      out.push({
        code: 'ATTRIBUTE_INVALID',
        severity: 'error',
        message: `${attribute}=${q(value)} of ${owner} is not allowed (allowed: ${allowed.join(', ')})`,
        ...where,
        attribute,
        fix: `write ${attribute}="${allowed[0]}"`,
      });
    }
  }
  const retries = attributes['retries'];
  if (retries !== undefined && !retriesSchema.safeParse(retries).success) {
    out.push({
      code: 'RETRIES_INVALID',
      severity: 'error',
      message: `retries ${q(retries)} of ${owner} is not a non-negative whole number`,
      ...where,
      attribute: 'retries',
      fix: 'write retries="3" (0 means no retry)',
    });
  }
  for (const attribute of DURATIONS) {
    const value = attributes[attribute];
    if (value === undefined || durationSchema.safeParse(value).success) continue;
    out.push({
      code: 'DURATION_INVALID',
      severity: 'error',
      message: `${attribute} ${q(value)} of ${owner} is not a duration (allowed: 500ms, 10s, 5m, 1h, 1d, or a number of milliseconds)`,
      ...where,
      attribute,
      fix: `write e.g. ${attribute}="30s"`,
    });
  }
}
