/**
 * Glossary — the words every other module uses.
 *
 * - **plan** (execution plan, EP): one DOT `digraph` plus its live state. Nodes are steps, an edge
 *   `a -> b` means *b depends on a*. Stored with its revisions; runs until completed/failed/cancelled.
 * - **revision**: one version of a plan's DOT text, authored by a template, the LLM, a person or the
 *   operator, with an update log and a pointer to its parent revision. Never edited in place.
 * - **node**: one step. Its `type` says how it runs (function / multiFunction / confirm / agent); its
 *   `status` moves through the state machine (see `status.ts`). Stored as a row with live fields.
 * - **edge**: a dependency `from -> to`, optionally with `when` (taken only if the source's output or
 *   answer matches).
 * - **attempt**: one try at running a node; a node's `attempts` counts them against its `retries`.
 * - **tool**: a registered TypeScript function (`toolCode` → `run(input, ctx)`) that a function node calls.
 * - **driver**: who moves a status — `engine` (scheduler/worker), `llm` (a plan rewrite), `person`
 *   (answers, reviews) or `operator` (hand edits, retry, skip, cancel).
 * - **rewrite**: a new revision produced by the LLM between `@EP@` markers, validated before it lands.
 * - **lease**: a worker's time-limited claim on a running node (owner, token, expiry).
 * - **snapshot**: the part of a plan's live state a step reads (src/engine/snapshot.ts).
 * - **step**: what one rule of the engine decides — node and plan moves, counter updates, events —
 *   computed from a snapshot before anything is written, then persisted in one transaction.
 * - **event**: one entry of a plan's audit log: a status move, an answer, a revision, a notice...
 */

/** Canonical node statuses (SPEC §3). */
export const NODE_STATUSES = ['pending', 'ready', 'running', 'awaiting_input', 'done', 'failed', 'skipped', 'cancelled'] as const;
/** A node's status; see the README's state table for who may move it where. */
export type NodeStatus = (typeof NODE_STATUSES)[number];

/** Node types (SPEC §2). */
export const NODE_TYPES = ['function', 'multiFunction', 'confirm', 'agent'] as const;
/** How a node runs: a tool, several tools, a question for a person, or an agent (not supported yet). */
export type NodeType = (typeof NODE_TYPES)[number];

/** Who drives a status move. */
export const DRIVERS = ['engine', 'llm', 'person', 'operator'] as const;
/** Who moved a status or made a change: the engine (workers), the LLM, a person (answers, reviews), the operator. */
export type Driver = (typeof DRIVERS)[number];

/** Plan statuses (SPEC §3). */
export const PLAN_STATUSES = ['draft', 'awaiting_review', 'running', 'paused', 'completed', 'failed', 'cancelled', 'rejected'] as const;
/** A plan's status. */
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Who wrote a revision. */
export const REVISION_AUTHORS = ['template', 'llm', 'person', 'operator'] as const;
/** Who wrote a revision. */
export type RevisionAuthor = (typeof REVISION_AUTHORS)[number];

/** DOT attributes: all values are strings in DOT. */
export type Attributes = Record<string, string>;

/** Where something stands in a DOT source (1-based). */
export interface SourceLocation {
  line: number;
  column: number;
}

/** One node of a plan graph, as read from DOT (defaults from `node [...]` already applied). */
export interface GraphNode {
  id: string;
  attributes: Attributes;
  /** Id of the `subgraph cluster_*` it was declared in (innermost), if any. */
  cluster?: string;
  /** Where the node was first mentioned in the source, when read from text. */
  location?: SourceLocation;
}

/** One edge `from -> to` (defaults from `edge [...]` already applied; chains are split into pairs). */
export interface GraphEdge {
  from: string;
  to: string;
  attributes: Attributes;
  location?: SourceLocation;
}

/** A `subgraph cluster_*` group: shown with its label, its nodes are plan nodes like any other. */
export interface GraphCluster {
  id: string;
  attributes: Attributes;
  /** Enclosing cluster id, for nested clusters. */
  parent?: string;
  location?: SourceLocation;
}

/**
 * A plan graph: the structure read from (and written to) DOT. Pure data, no live state beyond what
 * the attributes say. Node, edge and cluster order is the order of first appearance.
 */
export interface PlanGraph {
  /** The digraph's id (`G` in `digraph G {`), if any. */
  name?: string;
  strict: boolean;
  /** Graph attributes: `mode`, `goal`, `params`, `review`, `onFailure`, retry defaults, `label`... */
  attributes: Attributes;
  nodes: GraphNode[];
  edges: GraphEdge[];
  clusters: GraphCluster[];
}

/**
 * Kinds of audit-log events (`plan events` shows every kind): `status` a move, `answer` a person's
 * answer, `revision` a new revision, `notice` a notice sent (or not), `review` a reviewer's decision,
 * `log` a line a tool wrote with `ctx.log` (when the worker has no `log` option), `child` an agent node
 * started its child plan (detail: the child's id and instance), `remote` one exchange with an external
 * agent (A2A: what was sent after redaction, what came back redacted, the remote task's id and state).
 */
export const EVENT_KINDS = ['status', 'answer', 'revision', 'notice', 'review', 'log', 'child', 'remote'] as const;
/** An audit-log event's kind (see {@link EVENT_KINDS}). */
export type EventKind = (typeof EVENT_KINDS)[number];
