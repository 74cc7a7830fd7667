import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { FromGoal, FromTemplate } from '../plans/prepare-plan.js';
import type { InboxEntry } from '../operations/inbox.js';
import { isObject, objectsOf, textOf } from './parts.js';

/**
 * What a client's message asks of dotplan, read from its text parts, its data parts (JSON objects)
 * and its metadata — the rules the README's "dotplan as an A2A agent" documents:
 *
 * - A new task names its skill in `skill` (message metadata or a data part): a template's name, with
 *   its parameters in `values`, or `goal`, whose goal is the message's text. A message that names no
 *   skill but has text is a goal. `title` and `review: true` are taken as `POST /v1/plans` takes them.
 * - A follow-up to a task waiting for a question's answer: its text is the answer to the question
 *   shown first; a data part `{"nodeId", "answer"}` (and `planId` for a question in a child plan)
 *   answers another one.
 * - A follow-up to a task waiting for a review: `approve` (a reason may follow) runs the plan,
 *   `reject <reason>` ends it; or a data part `{"decision": "approve" | "reject", "reason"}`.
 */

/** The skill of a reflection plan made from a goal. */
export const GOAL_SKILL = 'goal';

/** The message's text and its fields: metadata overlaid with the data parts' objects, in order. */
export interface Ask {
  text: string;
  fields: Record<string, unknown>;
}

export function readMessage(message: Message): Ask {
  const fields: Record<string, unknown> = { ...(isObject(message.metadata) ? message.metadata : {}) };
  for (const object of objectsOf(message.parts)) Object.assign(fields, object);
  return { text: textOf(message.parts), fields };
}

/** A new plan: what `Dotplan.create` takes, and whether it waits for a reviewer. */
export interface NewPlan {
  skill: string;
  input: FromTemplate | FromGoal;
  review: boolean;
}

/** The plan a new task's message asks for; `templates` are the template skills the agent card lists. */
export function newPlan(ask: Ask, templates: ReadonlySet<string>): NewPlan {
  const skill = optionalString(ask.fields, 'skill') ?? (ask.text !== '' ? GOAL_SKILL : undefined);
  const known = () => [...templates, GOAL_SKILL].join(', ');
  if (skill === undefined) {
    throw malformed(
      `the message names no skill and has no text: put the skill in the message's metadata or a data part ({"skill": "<name>", "values": {...}}), ` +
        `one of ${known()} (the agent card at /.well-known/agent-card.json describes each); a text message without a skill is taken as a goal`,
    );
  }
  const title = optionalString(ask.fields, 'title');
  const review = ask.fields.review;
  if (review !== undefined && typeof review !== 'boolean') throw malformed(`"review" must be true or false (got ${JSON.stringify(review)})`);
  const named = title !== undefined ? { title } : {};
  if (skill === GOAL_SKILL) {
    if (ask.fields.values !== undefined) throw malformed('"values" go with a template skill; the goal skill takes its goal as the message\'s text');
    const goal = optionalString(ask.fields, 'goal') ?? ask.text;
    if (goal.trim() === '') throw malformed("the goal skill needs the goal: send it as the message's text (what the plan should achieve, in words)");
    return { skill, input: { goal, ...named }, review: review === true };
  }
  if (!templates.has(skill)) throw malformed(`unknown skill "${skill}": this agent's skills are ${known()} (the agent card at /.well-known/agent-card.json)`);
  return { skill, input: { template: skill, values: valuesOf(ask.fields.values), ...named }, review: review === true };
}

/** What a follow-up does to a task waiting for a person. */
export type Reply =
  | { kind: 'answer'; planId: string; nodeId: string; answer: string }
  | { kind: 'approve'; planId: string; reason?: string }
  | { kind: 'reject'; planId: string; reason: string };

const APPROVE = /^(approve|approved|yes|ok)\b[\s:,.;-]*([\s\S]*)$/i;
const REJECT = /^(reject|rejected|no)\b[\s:,.;-]*([\s\S]*)$/i;

/** The reply a follow-up gives to what waits (`waiting`, oldest first: what INPUT_REQUIRED showed). */
export function replyOf(ask: Ask, waiting: readonly InboxEntry[], taskId: string): Reply {
  const planId = optionalString(ask.fields, 'planId');
  const reviews = waiting.filter((w) => w.kind === 'review');
  // A review is decided by a reply when nothing else waits, or by a data part with "decision" (and "planId" for a child plan's).
  if (reviews.length > 0 && (reviews.length === waiting.length || ask.fields.decision !== undefined)) {
    const review = planId !== undefined ? reviews.find((r) => r.planId === planId) : (reviews.find((r) => r.planId === taskId) ?? reviews[0]);
    if (review === undefined) throw malformed(`no review waits for plan ${planId} in task ${taskId}; these do: ${reviews.map((r) => r.planId).join(', ')}`);
    return reviewReply(ask, review.planId);
  }
  const questions = waiting.filter((w) => w.kind === 'question' && w.nodeId !== undefined);
  const nodeId = optionalString(ask.fields, 'nodeId');
  const target = nodeId === undefined ? questions[0] : questions.find((q) => q.nodeId === nodeId && (planId === undefined || q.planId === planId));
  if (target === undefined) {
    const listed = questions.map((q) => `node "${q.nodeId}"${q.planId !== taskId ? ` of plan ${q.planId}` : ''}`).join(', ');
    throw malformed(`no question waits at node "${nodeId}"${planId !== undefined ? ` of plan ${planId}` : ''} in task ${taskId}; these do: ${listed}`);
  }
  const answer = optionalString(ask.fields, 'answer') ?? ask.text;
  if (answer.trim() === '') {
    const options = target.options && target.options.length > 0 ? `one of: ${target.options.join(', ')}` : 'free text';
    throw malformed(`the reply has no answer: send the answer to node "${target.nodeId}" as the message's text (${options})`);
  }
  return { kind: 'answer', planId: target.planId, nodeId: target.nodeId!, answer: answer.trim() };
}

function reviewReply(ask: Ask, planId: string): Reply {
  const how = `reply "approve" (a reason may follow) to run it, or "reject <reason>" to end it`;
  const decision = optionalString(ask.fields, 'decision');
  const given = optionalString(ask.fields, 'reason');
  if (decision !== undefined) {
    if (decision === 'approve') return { kind: 'approve', planId, ...(given ? { reason: given } : {}) };
    if (decision !== 'reject') throw malformed(`"decision" must be "approve" or "reject" (got "${decision}"); or ${how}`);
    if (!given?.trim()) throw malformed(`a rejection says why: give "reason" with "decision": "reject"`);
    return { kind: 'reject', planId, reason: given.trim() };
  }
  const approve = APPROVE.exec(ask.text);
  if (approve) return { kind: 'approve', planId, ...(approve[2]?.trim() ? { reason: approve[2].trim() } : {}) };
  const reject = REJECT.exec(ask.text);
  if (reject) {
    const reason = reject[2]?.trim() || given?.trim();
    if (!reason) throw malformed(`a rejection says why: reply "reject <reason>" (plan ${planId} was neither approved nor rejected)`);
    return { kind: 'reject', planId, reason };
  }
  throw malformed(`plan ${planId} waits for a review: ${how} (got ${JSON.stringify(ask.text.slice(0, 80))})`);
}

/** Template values as text: strings as they are, numbers and booleans written out; anything else is refused, naming the key. */
function valuesOf(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) throw malformed(`"values" must be an object of parameter names to values (got ${JSON.stringify(value)})`);
  const values: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string') values[key] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') values[key] = String(v);
    else throw malformed(`values.${key} must be text, a number or true/false (got ${JSON.stringify(v)})`);
  }
  return values;
}

function optionalString(fields: Record<string, unknown>, key: string): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw malformed(`"${key}" must be text (got ${JSON.stringify(value)})`);
  return value;
}

function malformed(message: string): Error {
  return new RequestMalformedError(message);
}
