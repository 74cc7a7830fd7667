import { TaskState, type Artifact, type Part, type Task } from '@a2a-js/sdk';
import type { DotplanReads } from '../operations/dotplan-reads.js';
import type { InboxEntry } from '../operations/inbox.js';
import type { PlanRecord } from '../store/types.js';
import { agentMessage, dataPart, textPart } from './parts.js';

/**
 * An A2A task is a plan, seen from the plan's own state — nothing of a task is stored apart from it,
 * so `GetTask` answers the same before and after a restart, on any server over the same database.
 * The task id and the context id are the plan's id. The state:
 *
 * | plan | task |
 * |---|---|
 * | a question waits in it (or in a child plan), or it waits for review | INPUT_REQUIRED, the question(s) and options or the plan to review |
 * | draft (a goal's LLM has not written the plan yet) | SUBMITTED |
 * | running, paused | WORKING, saying what it waits for |
 * | completed | COMPLETED, with the artifact `result` |
 * | failed / cancelled / rejected | FAILED (the error) / CANCELED / REJECTED (the reviewer's reason) |
 */

/** What the task's state is derived from: the plan and what in its tree waits for a person (oldest first). */
export interface PlanFacts {
  plan: PlanRecord;
  waiting: InboxEntry[];
}

/** The plan and what waits in its tree, read now. */
export async function readFacts(dotplan: DotplanReads, planId: string): Promise<PlanFacts> {
  const [plan, waiting] = await Promise.all([dotplan.plan(planId), dotplan.inbox({ planId })]);
  return { plan, waiting };
}

const FINAL: Readonly<Partial<Record<PlanRecord['status'], TaskState>>> = {
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
};

/** The task's state, from the plan's status and what waits for a person in it (the table above). */
export function taskState({ plan, waiting }: PlanFacts): TaskState {
  const final = FINAL[plan.status];
  if (final !== undefined) return final;
  if (waiting.length > 0) return TaskState.TASK_STATE_INPUT_REQUIRED;
  return plan.status === 'draft' ? TaskState.TASK_STATE_SUBMITTED : TaskState.TASK_STATE_WORKING;
}

/** Whether the task is over (COMPLETED, FAILED, CANCELED, REJECTED). */
export function isFinal(state: TaskState): boolean {
  return Object.values(FINAL).includes(state);
}

/** Whether a blocking SendMessage returns: the task is over, or waits for the client. */
export function isSettled(facts: PlanFacts): boolean {
  const state = taskState(facts);
  return isFinal(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED;
}

/** The state's name as the protocol spells it (`INPUT_REQUIRED`). */
export function stateName(state: TaskState): string {
  return (TaskState[state] ?? String(state)).replace(/^TASK_STATE_/, '');
}

/** The task as A2A shows it: its state with a message (text, and the same facts in a data part), and the result once completed. */
export async function taskOf(dotplan: DotplanReads, facts: PlanFacts): Promise<Task> {
  const { plan, waiting } = facts;
  const state = taskState(facts);
  const since = state === TaskState.TASK_STATE_INPUT_REQUIRED ? (waiting[0]?.since ?? plan.updatedAt) : plan.updatedAt;
  const ids = { taskId: plan.id, contextId: plan.id, messageId: `${plan.id}-${stateName(state).toLowerCase()}-${since.getTime()}` };
  const parts = await statusParts(dotplan, facts, state);
  return {
    id: plan.id,
    contextId: plan.id,
    status: { state, message: agentMessage(ids, parts), timestamp: since.toISOString() },
    artifacts: state === TaskState.TASK_STATE_COMPLETED ? [await resultArtifact(dotplan, plan)] : [],
    history: [],
    metadata: {
      dotplan: {
        planId: plan.id,
        status: plan.status,
        mode: plan.mode,
        title: plan.title,
        ...(plan.template !== undefined ? { template: plan.template } : {}),
      },
    },
  };
}

async function statusParts(dotplan: DotplanReads, { plan, waiting }: PlanFacts, state: TaskState): Promise<Part[]> {
  const name = `plan ${plan.id} "${plan.title}"`;
  switch (state) {
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return waiting.length === 1 && waiting[0]!.kind === 'review' && waiting[0]!.planId === plan.id
        ? reviewParts(dotplan, plan, name)
        : waitingParts(plan, waiting);
    case TaskState.TASK_STATE_COMPLETED:
      return [textPart(`${name} completed: its result is the artifact "result".`), dataPart({ status: plan.status })];
    case TaskState.TASK_STATE_FAILED:
      return [textPart(`${name} failed: ${plan.error ?? 'no reason was recorded'}`), dataPart({ status: plan.status, error: plan.error })];
    case TaskState.TASK_STATE_CANCELED:
      return [textPart(`${name} was cancelled.`), dataPart({ status: plan.status })];
    case TaskState.TASK_STATE_REJECTED: {
      const reviews = await dotplan.events.list({ planId: plan.id, kind: 'review' });
      const reason = reviews.at(-1)?.reason;
      return [textPart(`${name} was rejected in review${reason ? `: ${reason}` : ''}.`), dataPart({ status: plan.status, reason })];
    }
    default: {
      const waits = await dotplan.waitingFor(plan.id);
      const what = waits.length > 0 ? `waiting for ${waits.map((w) => w.text).join('; ')}` : 'nothing waits';
      const verb = plan.status === 'draft' ? 'is new' : `is ${plan.status}`;
      return [
        textPart(`${name} ${verb} (${plan.mode}): ${what}.`),
        dataPart({ status: plan.status, waitingFor: waits.map((w) => ({ for: w.for, text: w.text })) }),
      ];
    }
  }
}

/** Questions (and a child plan's review, if one waits too), each with its options, and how to reply. */
function waitingParts(plan: PlanRecord, waiting: readonly InboxEntry[]): Part[] {
  const numbered = waiting.length > 1;
  const lines = waiting.map((w, i) => {
    const number = numbered ? `${i + 1}. ` : '';
    if (w.kind === 'review')
      return `${number}plan ${w.planId} "${w.planTitle}"${w.path ? ` (${w.path})` : ''} waits for a review: reply with a data part {"planId": "${w.planId}", "decision": "approve"} or {"planId": "${w.planId}", "decision": "reject", "reason": "<why>"}.`;
    const where = `node "${w.nodeId}"${w.planId !== plan.id ? ` of plan ${w.planId}${w.path ? ` (${w.path})` : ''}` : ''}`;
    const options = w.options && w.options.length > 0 ? ` Options: ${w.options.join(', ')}.` : '';
    return `${number}${where} asks: ${w.question ?? '(no question text)'}${options}`;
  });
  const first = waiting.find((w) => w.kind === 'question');
  const how = !first
    ? `Reply "approve" (a reason may follow) to run ${numbered ? 'the first' : 'it'}, or "reject <reason>" to end it.`
    : numbered
      ? 'Reply in this task with the answer as text: it answers the first question; to answer another, send a data part {"nodeId": "<node>", "answer": "<answer>"} (with "planId" for a child plan\'s question).'
      : `Reply in this task with the answer as text${first?.options && first.options.length > 0 ? ` (one of: ${first.options.join(', ')})` : ''}.`;
  return [
    textPart([`Plan ${plan.id} "${plan.title}" needs ${numbered ? 'answers' : 'an answer'}.`, ...lines, how].join('\n')),
    dataPart({
      waiting: waiting.map((w) =>
        w.kind === 'review'
          ? { kind: 'review', planId: w.planId, title: w.planTitle, since: w.since, ...(w.path !== undefined ? { path: w.path } : {}) }
          : {
              kind: 'question',
              planId: w.planId,
              nodeId: w.nodeId,
              question: w.question,
              options: w.options ?? [],
              since: w.since,
              ...(w.path !== undefined ? { path: w.path } : {}),
            },
      ),
    }),
  ];
}

async function reviewParts(dotplan: DotplanReads, plan: PlanRecord, name: string): Promise<Part[]> {
  const dot = await dotplan.show(plan.id);
  return [
    textPart(
      `${name} waits for a review before it runs. Reply "approve" (a reason may follow) to run it, or "reject <reason>" to end it. The plan, as DOT, is in the data part.`,
    ),
    dataPart({ waiting: [{ kind: 'review', planId: plan.id, title: plan.title, options: ['approve', 'reject <reason>'] }], dot }),
  ];
}

/** A completed plan's result: a reflection plan's final answer, or each end node's output (an answer for a question node), as text and as JSON. */
async function resultArtifact(dotplan: DotplanReads, plan: PlanRecord): Promise<Artifact> {
  const [nodes, edges] = await Promise.all([dotplan.nodes(plan.id), dotplan.edges(plan.id)]);
  const followed = new Set(edges.map((e) => e.from));
  const outputs = nodes
    .filter((n) => !followed.has(n.id) && n.status === 'done')
    .map((n) => ({ node: n.id, ...(n.output !== undefined ? { output: n.output } : {}), ...(n.answer !== undefined ? { answer: n.answer } : {}) }));
  const text =
    plan.result ??
    (outputs.length === 1 ? (outputs[0]!.output ?? outputs[0]!.answer ?? '') : outputs.map((o) => `${o.node}: ${o.output ?? o.answer ?? ''}`).join('\n'));
  return {
    artifactId: `${plan.id}-result`,
    name: 'result',
    description: plan.result !== undefined ? 'The final answer of the plan.' : 'The outputs of the end nodes of the plan (those no edge leaves).',
    parts: [textPart(text), dataPart({ ...(plan.result !== undefined ? { answer: plan.result } : {}), outputs })],
    metadata: undefined,
    extensions: [],
  };
}
