import type { RevisionDriver } from './rights.js';

/**
 * Attributes a driver may not set, add, change or remove in a revision (SPEC §9). The plan's
 * identity (`mode`) is fixed for everyone. Its limits and its governance belong to the people who run
 * the plan, not to the model: a revision by the `llm` driver that touches one is refused
 * (`NOT_ALLOWED`, naming the attribute); an operator, and a reviewer, may still change them.
 */
export interface FixedAttribute {
  /** What kind of setting it is, in the refusal's words. */
  kind: 'identity' | 'limit' | 'governance';
  /** What it decides, for the refusal. */
  what: string;
}

/** Graph attributes the model may not change. */
export const MODEL_FIXED_GRAPH_ATTRIBUTES: ReadonlyMap<string, FixedAttribute> = new Map<string, FixedAttribute>([
  ['mode', { kind: 'identity', what: 'how the plan runs' }],
  ['goal', { kind: 'identity', what: 'what the plan is for' }],
  ['maxRewriteAttempts', { kind: 'limit', what: 'how many refused replies in a row fail the plan' }],
  ['maxReplans', { kind: 'limit', what: 'how many failed verifications end the plan' }],
  ['maxTokens', { kind: 'limit', what: "the plan's token budget" }],
  ['resultChars', { kind: 'limit', what: 'how much of each result the model is shown' }],
  ['maxTurns', { kind: 'limit', what: "how many turns an agent's model may take" }],
  ['maxReplyBytes', { kind: 'limit', what: 'how large a reply may be' }],
  ['retries', { kind: 'limit', what: "the nodes' default number of retries" }],
  ['retryDelay', { kind: 'limit', what: "the nodes' default delay between retries" }],
  ['timeout', { kind: 'limit', what: "the nodes' default time limit" }],
  ['review', { kind: 'governance', what: 'whether a person reviews the plan before it runs' }],
  ['reviewTimeout', { kind: 'governance', what: 'when the review is decided without the reviewer' }],
  ['onReviewTimeout', { kind: 'governance', what: 'what happens when nobody reviews in time' }],
  ['remindEvery', { kind: 'governance', what: 'how often people are reminded' }],
  ['notify', { kind: 'governance', what: "who hears of the plan's questions and reviews" }],
  ['verify', { kind: 'governance', what: "how the nodes' outputs are checked by default" }],
]);

/** Node attributes the model may not set, add, change or remove: a node it writes waits for a person, and runs within the plan's limits. */
export const MODEL_FIXED_NODE_ATTRIBUTES: ReadonlyMap<string, FixedAttribute> = new Map<string, FixedAttribute>([
  ['default', { kind: 'governance', what: 'the answer taken for a person when nobody answers in time' }],
  ['answerTimeout', { kind: 'governance', what: "when the engine stops waiting for a person's answer" }],
  ['remindEvery', { kind: 'governance', what: 'how often the person asked is reminded' }],
  ['retries', { kind: 'limit', what: 'how often a failed attempt is retried' }],
  ['retryDelay', { kind: 'limit', what: 'how long a retry waits' }],
  ['timeout', { kind: 'limit', what: 'how long an attempt may run' }],
]);

/** The fixed graph attribute `attribute` for `driver`, if it is one. */
export function fixedGraphAttribute(attribute: string, driver: RevisionDriver): FixedAttribute | undefined {
  const fixed = MODEL_FIXED_GRAPH_ATTRIBUTES.get(attribute);
  if (fixed === undefined) return undefined;
  return driver === 'llm' || attribute === 'mode' ? fixed : undefined;
}

/** The fixed node attribute `attribute` for `driver`, if it is one. */
export function fixedNodeAttribute(attribute: string, driver: RevisionDriver): FixedAttribute | undefined {
  return driver === 'llm' ? MODEL_FIXED_NODE_ATTRIBUTES.get(attribute) : undefined;
}
