import { modeRules } from '../model/plan-modes.js';
import { answerCommand, commandLine } from '../model/command-line.js';
import { waitingFrom } from '../model/waiting.js';
import type { LlmState, NodeRecord, PlanRecord, WaitingItem } from '../store/index.js';

/**
 * What a plan waits for, in one place (issue 13: nothing waits silently): the LLM, a person's answer
 * or review, an operator's resume, a retry's time, a worker to run or finish a node — computed from
 * the plan's state alone, so `plan show` (text and JSON) and anything else that asks say the same.
 * A finished plan waits for nothing.
 */
export interface Wait {
  for: 'llm' | 'review' | 'answer' | 'resume' | 'retry' | 'worker' | 'running';
  /** What it waits for, in words ("an answer to node ask"); `waitLine` makes the sentence. */
  text: string;
  /** The node it is about (answer, retry, running). */
  node?: string;
  /** Ready nodes no worker has claimed yet (worker). */
  nodes?: string[];
  /** Since when a person has been waited for (answer, review). */
  since?: Date;
  /** When it is due (retry). */
  at?: Date;
  /** The command that acts on it. */
  command?: string;
}

export interface PlanState {
  plan: Pick<PlanRecord, 'id' | 'status' | 'mode'>;
  nodes: ReadonlyArray<Pick<NodeRecord, 'id' | 'status' | 'runAfter' | 'leaseOwner'>>;
  /** What waits for a person in the plan, as the store defines it (src/store/sql/waits.ts), with its since. */
  people: readonly WaitingItem[];
  llm: LlmState;
  /** Epoch ms: a ready node due later than this waits for its retry. */
  now: number;
  /** Whether the plan has no nodes at all (a reflection plan before its first plan); default: `nodes` is empty, when it holds them all. */
  empty?: boolean;
}

const LIVE = new Set(['running', 'awaiting_review', 'paused']);
/** Ready node ids named in a sentence, at most. */
const NAMED = 5;

export function waitsFor({ plan, nodes, people, llm, now, empty = nodes.length === 0 }: PlanState): Wait[] {
  if (!LIVE.has(plan.status)) return [];
  const waits: Wait[] = [];
  if (modeRules(plan.mode).servedByLlm && llm.due > 0 && plan.status !== 'paused') waits.push(llmWait(plan.status, empty, llm));
  for (const item of people) {
    const waiting = waitingFrom(item);
    if (item.kind === 'review') waits.push({ for: 'review', text: 'review', since: item.since, command: answerCommand(waiting) });
    else waits.push({ for: 'answer', node: item.nodeId!, text: `an answer to node ${item.nodeId!}`, since: item.since, command: answerCommand(waiting) });
  }
  if (plan.status === 'paused') waits.push({ for: 'resume', text: 'an operator to resume it', command: commandLine('dotplan', 'plan', 'resume', plan.id) });
  for (const node of nodes) {
    if (node.status === 'ready' && node.runAfter !== undefined && node.runAfter.getTime() > now) {
      waits.push({ for: 'retry', node: node.id, text: `node ${node.id}'s retry at ${node.runAfter.toISOString()}`, at: node.runAfter });
    }
  }
  const ready = nodes.filter((n) => n.status === 'ready' && (n.runAfter === undefined || n.runAfter.getTime() <= now)).map((n) => n.id);
  if (ready.length > 0 && plan.status === 'running') {
    const named = ready.slice(0, NAMED).join(', ') + (ready.length > NAMED ? ', …' : '');
    waits.push({
      for: 'worker',
      nodes: ready,
      text: ready.length === 1 ? `a worker to run node ${named}` : `a worker to run ${ready.length} ready nodes (${named})`,
    });
  }
  for (const node of nodes) {
    if (node.status === 'running')
      waits.push({ for: 'running', node: node.id, text: `node ${node.id} to finish${node.leaseOwner ? ` (running on ${node.leaseOwner})` : ''}` });
  }
  return waits;
}

/** The sentence: "waiting for an answer to node ask since …: dotplan answer …". */
export function waitLine(wait: Wait): string {
  const since = wait.since ? ` since ${wait.since.toISOString()}` : '';
  const command = wait.command ? `: ${wait.command}${wait.for === 'review' ? ' (or plan reject --reason, plan modify)' : ''}` : '';
  return `waiting for ${wait.text}${since}${command}`;
}

/** A wait as JSON (`plan show --format json`): times as ISO strings. */
export function waitJson(wait: Wait): Record<string, unknown> {
  return { ...wait, ...(wait.since ? { since: wait.since.toISOString() } : {}), ...(wait.at ? { at: wait.at.toISOString() } : {}) };
}

function llmWait(status: PlanRecord['status'], empty: boolean, llm: LlmState): Wait {
  const what = empty ? 'write its first plan' : status === 'awaiting_review' ? "act on the reviewer's suggestion" : 'revise the plan';
  const who = llm.servedBy ? `the LLM (served by worker ${llm.servedBy})` : 'a worker with an LLM endpoint';
  const problem = llm.lastProblem
    ? `; its last ${llm.lastProblem.outcome === 'error' ? 'call failed' : 'reply was refused'} at ${llm.lastProblem.at.toISOString()}: ${llm.lastProblem.message}`
    : '';
  return { for: 'llm', text: `${who} to ${what}${problem}` };
}
