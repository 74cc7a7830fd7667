import { ConflictError, InvalidInputError } from '../errors/errors.js';
import { commaList } from '../model/attributes.js';
import { commandLine } from '../model/command-line.js';
import { plural } from '../model/plural.js';
import type { NodeStatus } from '../model/types.js';
import { failNode } from './failure.js';
import { propagate } from './propagate.js';
import { STARTED } from './readiness.js';
import type { Snapshot } from './snapshot.js';
import { StepBuilder, type Actor, type Step } from './step.js';

/**
 * What people and operators do to one node (SPEC §3): answer a question, retry a failed node, skip
 * a node that has not run. Each returns the step, or throws naming node, status and what is allowed.
 * Plans whose nodes may be moved: running, paused, and failed (a retry or skip resumes it).
 */

/**
 * A person's answer: awaiting_input → done with the answer, then readiness follows. The same answer
 * again changes nothing (`undefined`); a different one is a conflict. An agent node asks for its agent
 * (an external agent's task wants input): the answer goes back to the agent — the node is ready to
 * run again with it, the attempt not counted — and does not finish the node.
 */
export function answer(snapshot: Snapshot, id: string, text: string, by: Actor): Step | undefined {
  const b = new StepBuilder(snapshot);
  const before = b.node(id);
  const answered = before.status === 'done' || (before.type === 'agent' && (before.status === 'ready' || before.status === 'running'));
  if (answered && before.answer !== undefined) {
    if (before.answer.trim() === text.trim() || before.answer === sameChoice(snapshot.plan.id, id, before.attributes, text)) return undefined;
    throw new ConflictError(
      `node ${JSON.stringify(id)} of plan ${snapshot.plan.id} was already answered ${JSON.stringify(before.answer)}; a different answer is not accepted`,
    );
  }
  if (before.status !== 'awaiting_input') {
    throw new InvalidInputError(
      `node ${JSON.stringify(id)} of plan ${snapshot.plan.id} is ${before.status}, not awaiting_input: only a node waiting for an answer can be answered`,
    );
  }
  const answer = chosen(snapshot.plan.id, id, before.attributes, text);
  b.note({ node: id, kind: 'answer', driver: by.driver, actor: by.name, detail: { answer } });
  if (before.type === 'agent') {
    backToAgent(b, id, answer, by, 'answered: the answer goes back to its agent');
    return b.build();
  }
  b.move(id, 'done', by, 'answered', { answer });
  propagate(b, [{ id, before }]);
  return b.build();
}

/** An agent node's answer: ready again (due at once, the attempt not counted), its agent takes the answer. */
function backToAgent(b: StepBuilder, id: string, answer: string, by: Actor, reason: string): void {
  const before = b.node(id);
  b.move(id, 'ready', by, reason, { answer, error: null, attempts: Math.max(0, before.attempts - 1), runAfterDelayMs: 0 });
}

/**
 * The answer as stored: for a node with `options` one of them (several, comma-separated, with
 * `multiple=true`), matched without regard to case and written as the option is; anything else is
 * refused with the list. Without options, the text as given.
 */
export function chosen(planId: string, id: string, attributes: Readonly<Record<string, string>> | undefined, text: string): string {
  const options = commaList(attributes?.options);
  if (options.length === 0) return text;
  const multiple = attributes?.multiple === 'true';
  const picked = (multiple ? text.split(',') : [text]).map((t) => t.trim()).filter((t) => t !== '');
  const resolved = picked.map((t) => options.find((o) => o.toLowerCase() === t.toLowerCase()));
  if (picked.length === 0 || resolved.some((o) => o === undefined)) {
    const wrong = picked.filter((_, i) => resolved[i] === undefined);
    throw new InvalidInputError(
      `node ${JSON.stringify(id)} of plan ${planId} takes ${multiple ? 'one or more of' : 'one of'} ${options.map((o) => JSON.stringify(o)).join(', ')}` +
        `${wrong.length > 0 ? `; ${wrong.map((w) => JSON.stringify(w)).join(', ')} is not among them` : '; the answer is empty'}`,
    );
  }
  return [...new Set(resolved as string[])].join(',');
}

/**
 * No answer came within the node's `answerTimeout`: the engine answers with the node's `default`
 * (an event says it was the timeout), or fails the node when it has none. Acted on once: the step
 * expects the node still waiting, so of several workers only the first one's step is written.
 */
export function answerTimedOut(snapshot: Snapshot, id: string, why: string): Step | undefined {
  const b = new StepBuilder(snapshot);
  const before = b.node(id);
  if (before.status !== 'awaiting_input') return undefined;
  const engine: Actor = { driver: 'engine' };
  const fallback = before.attributes?.default;
  if (fallback !== undefined) {
    b.note({
      node: id,
      kind: 'answer',
      driver: 'engine',
      reason: `timeout: ${why}; the default answer was taken`,
      detail: { answer: fallback, timeout: true },
    });
    if (before.type === 'agent') backToAgent(b, id, fallback, engine, `timeout: ${why}; the default answer goes back to its agent`);
    else {
      b.move(id, 'done', engine, `timeout: ${why}; took the default answer`, { answer: fallback });
      propagate(b, [{ id, before }]);
    }
  } else {
    propagate(b, [failNode(b, id, `no answer: ${why}, and the node has no default`, engine, `timeout: ${why}`)]);
  }
  return b.build();
}

/** failed → ready, its attempts afresh; a failed plan resumes. `candidates`: pending nodes whose sources have all finished. */
export function retry(snapshot: Snapshot, id: string, by: Actor, reason: string, candidates: readonly string[] = []): Step {
  return operatorMove(snapshot, id, 'ready', by, reason, candidates);
}

/** pending, ready, failed or awaiting_input → skipped: the plan goes on as if the node had finished with no output. */
export function skip(snapshot: Snapshot, id: string, by: Actor, reason: string, candidates: readonly string[] = []): Step {
  return operatorMove(snapshot, id, 'skipped', by, reason, candidates);
}

function operatorMove(snapshot: Snapshot, id: string, to: NodeStatus, by: Actor, reason: string, candidates: readonly string[]): Step {
  const plan = snapshot.plan;
  if (plan.status !== 'running' && plan.status !== 'paused' && plan.status !== 'failed') {
    throw new InvalidInputError(`plan ${plan.id} is ${plan.status}; only the nodes of a running, paused or failed plan can be retried or skipped`);
  }
  const b = new StepBuilder(snapshot);
  const before = b.node(id);
  // Edges hold for every driver (readiness.ts): a node whose parent runs again waits for it.
  if (STARTED.has(to) && before.waiting > 0) {
    const parents = plural(before.waiting, 'node it waits for', 'nodes it waits for');
    throw new InvalidInputError(
      `node ${JSON.stringify(id)} of plan ${plan.id} cannot be ${to} yet: ${parents} ${before.waiting === 1 ? 'has' : 'have'} not finished ` +
        `(an edge means "waits for"). Retry it once ${before.waiting === 1 ? 'it has' : 'they have'} finished; ${commandLine('dotplan', 'plan', 'show', plan.id)} shows ${before.waiting === 1 ? 'it' : 'them'}`,
    );
  }
  b.move(id, to, by, reason, to === 'ready' ? { attempts: 0, error: null, runAfterDelayMs: 0 } : { skippedBy: by.driver });
  // Resume after the move, so that the plan does not settle on the node that was just moved.
  if (plan.status === 'failed') b.movePlan('running', by, `resumed by ${by.name ?? 'an operator'}`, null);
  propagate(b, [{ id, before }], candidates);
  return b.build();
}

/** The answer `text` would be stored as, or undefined when it is not one of the node's options. */
function sameChoice(planId: string, id: string, attributes: Readonly<Record<string, string>> | undefined, text: string): string | undefined {
  try {
    return chosen(planId, id, attributes, text);
  } catch {
    return undefined;
  }
}
