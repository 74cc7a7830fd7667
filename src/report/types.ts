import type { Driver, EventKind, NodeStatus, NodeType, PlanStatus, RevisionAuthor } from '../model/types.js';

/**
 * The run report (`dotplan plan report`) as data: everything a person who was not there needs to
 * follow what a plan did — who reviewed it, what each node took and gave, who answered its
 * questions, how its structure changed, what the LLM cost. Times are ISO strings and values are
 * whole, so the object is also the report's `--format json`; the Markdown and HTML renderers cut
 * long values for reading.
 */
export interface RunReport {
  plan: PlanSummary;
  review: ReviewSummary;
  /** Every event of the plan, oldest first. */
  timeline: TimelineEntry[];
  /** In graph order: each node after the nodes it waits for. */
  nodes: NodeEntry[];
  questions: QuestionEntry[];
  revisions: RevisionSummary[];
  llm: LlmSummary;
}

export interface PlanSummary {
  id: string;
  title: string;
  /** The graph attribute `goal`, if any. */
  goal?: string;
  status: PlanStatus;
  mode: string;
  template?: string;
  params: Record<string, string>;
  /** The latest revision's number. */
  revision: number;
  createdAt: string;
  updatedAt: string;
  /** When the plan reached its final status (completed, failed, cancelled, rejected); absent while it is not finished. */
  endedAt?: string;
  /** From creation to `endedAt`, or to the plan's last event while it is not finished (then `finished` is false). */
  durationMs: number;
  finished: boolean;
  /** The final answer (`plan.result`). */
  result?: string;
  error?: string;
}

export interface ReviewSummary {
  /** The graph attribute `review="required"`. */
  required: boolean;
  /** Empty: not reviewed. */
  reviews: ReviewEntry[];
}

export interface ReviewEntry {
  at: string;
  /** `approved`, `rejected`, or the status the plan left review for (`cancelled`). */
  decision: string;
  driver: Driver;
  actor?: string;
  /** `driver:actor`, or the driver alone. */
  who: string;
  reason?: string;
}

export interface TimelineEntry {
  id: number;
  at: string;
  /** Absent for plan-level events. */
  node?: string;
  kind: EventKind;
  who: string;
  /** `from → to` for a status move (`∅` for no status before); otherwise the kind, with what it carried (the answer, the revision). */
  what: string;
  reason?: string;
}

export interface NodeEntry {
  id: string;
  label: string;
  type: NodeType;
  status: NodeStatus;
  /** Attempts of its current run (an operator's retry starts them afresh). */
  attempts: number;
  /** How many times it was claimed to run, over its whole history. */
  runs: number;
  cluster?: string;
  /**
   * What its last attempt ran with, references resolved (a multiFunction node: its calls with their
   * resolved inputs); before it ran, its `toolInput` as written (`toolCalls`, an agent node's `task`).
   */
  input?: string;
  output?: string;
  answer?: string;
  error?: string;
  /** Its first `running` (or, for a question, `awaiting_input`) event. */
  startedAt?: string;
  /** Its last finishing event (done, failed, skipped, cancelled), when it is finished. */
  finishedAt?: string;
  durationMs?: number;
}

export interface QuestionEntry {
  node: string;
  label: string;
  status: NodeStatus;
  /** As asked (references resolved once the node has asked it). */
  question?: string;
  options?: string;
  default?: string;
  answer?: string;
  /** Who answered, `driver:actor`, from the node's `answer` event. */
  answeredBy?: string;
  answeredAt?: string;
}

export interface RevisionSummary {
  number: number;
  parent?: number;
  author: RevisionAuthor;
  /** `driver:actor` of the revision event; absent for a plan's first revision. */
  who?: string;
  changes?: number;
  at: string;
  updateLog?: string;
}

export interface LlmSummary {
  calls: LlmCallEntry[];
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface LlmCallEntry {
  purpose: string;
  node?: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  ms: number;
  outcome: string;
  /** How many problems a refused reply had. */
  problems?: number;
  at: string;
}
