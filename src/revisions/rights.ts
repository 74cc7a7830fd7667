import { LIVE_ATTRIBUTES } from '../engine/initial-state.js';
import { STARTED, unfinishedParents } from '../engine/readiness.js';
import { commandLine } from '../model/command-line.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { normaliseStatus } from '../model/status.js';
import type { Driver, NodeStatus, PlanGraph, PlanStatus } from '../model/types.js';
import { allowedTargets, canMoveNode } from '../state/node-moves.js';
import { edgeName, type PlanChange } from './diff.js';
import { fixedGraphAttribute, fixedNodeAttribute, type FixedAttribute } from './fixed-attributes.js';

/**
 * Who may change what in a running plan (SPEC §9): each change of a revision checked against the
 * driver's rights and the current status of what it touches. A change of a live field is a move
 * asked of the state machine (`status`), or history that nobody rewrites (`toolOutput`, `answer`,
 * `error` of an existing node). The plan's limits and governance are not the model's to change
 * (fixed-attributes.ts), and an edge holds for every driver: no revision starts a node whose
 * parents have not finished. Pure: the caller passes the nodes' current statuses.
 */
export type RevisionDriver = Extract<Driver, 'llm' | 'person' | 'operator'>;

/** A change the edit's author may not make (a node that has run, a move the state machine refuses...), named with the fix. */
export interface RightsProblem {
  code: 'NODE_RUNNING' | 'NODE_HISTORY' | 'NODE_REMOVE_RUN' | 'EDGE_INTO_STARTED' | 'NOT_ALLOWED' | 'MOVE_REFUSED' | 'STATUS_UNKNOWN' | 'PARENTS_UNFINISHED';
  node?: string;
  edge?: string;
  attribute?: string;
  message: string;
  fix: string;
}

/** Attributes that only change how a node is drawn: any driver may change them on any node. */
export const DISPLAY_ATTRIBUTES: ReadonlySet<string> = new Set(['label', 'shape', 'color', 'fillcolor', 'fontcolor', 'style', 'penwidth', 'tooltip', 'xlabel']);

/** Statuses a node may have when a revision adds it, per driver. */
const NEW_NODE_STATUSES: Readonly<Record<RevisionDriver, readonly NodeStatus[]>> = {
  llm: ['pending', 'ready', 'awaiting_input', 'skipped'],
  person: ['pending', 'ready', 'skipped'],
  operator: ['pending', 'ready', 'skipped'],
};

/** Statuses in which a driver may change a node's (non-display) attributes. */
const EDITABLE: Readonly<Record<RevisionDriver, readonly NodeStatus[]>> = {
  llm: ['pending'],
  person: ['pending', 'ready'],
  operator: ['pending', 'ready', 'failed', 'skipped'],
};

/** Statuses in which a driver may remove a node. */
const REMOVABLE: Readonly<Record<RevisionDriver, readonly NodeStatus[]>> = {
  llm: ['pending'],
  person: ['pending', 'ready'],
  operator: ['pending', 'ready', 'skipped'],
};

/**
 * Whether a plan in `status` takes a revision by `driver` at all: a cancelled or rejected plan takes
 * none (`plan rerun` runs it again as a new plan); a completed or failed one only an operator's,
 * which reopens it when it gives it something to run (engine/revise.ts). A PLAN_CLOSED diagnostic
 * when it does not.
 */
export function closedTo(plan: { id: string; status: PlanStatus }, driver: RevisionDriver): Diagnostic | undefined {
  const rerun = `run it again as a new plan: ${commandLine('dotplan', 'plan', 'rerun', plan.id)}`;
  if (plan.status === 'cancelled' || plan.status === 'rejected') {
    return { code: 'PLAN_CLOSED', severity: 'error', message: `plan ${plan.id} is ${plan.status}: a ${plan.status} plan takes no revision`, fix: rerun };
  }
  if ((plan.status === 'completed' || plan.status === 'failed') && driver !== 'operator') {
    return {
      code: 'PLAN_CLOSED',
      severity: 'error',
      message: `plan ${plan.id} is ${plan.status}: only an operator's revision may change a plan that has ended (the ${driver} may not)`,
      fix: `an operator may reopen it with \`dotplan plan apply\`, or ${rerun}`,
    };
  }
  return undefined;
}

/**
 * Every problem with `changes` (from the current plan to `next`, the new one) for `driver`; empty
 * when the driver may make all of them. `statuses`: the current status of each node of the current plan.
 */
export function checkRights(
  changes: readonly PlanChange[],
  statuses: ReadonlyMap<string, NodeStatus>,
  driver: RevisionDriver,
  next: Pick<PlanGraph, 'nodes' | 'edges'>,
): RightsProblem[] {
  const problems: RightsProblem[] = [];
  const added = new Set(changes.filter((c) => c.kind === 'node-added').map((c) => c.node));
  const targetOpen = (node: string) => added.has(node) || statuses.get(node) === 'pending';
  for (const change of changes) {
    switch (change.kind) {
      case 'node-added': {
        const status = normaliseStatus(change.attributes.status ?? 'pending');
        if (!status) problems.push(unknownStatus(change.node, change.attributes.status ?? ''));
        else if (!NEW_NODE_STATUSES[driver].includes(status)) {
          problems.push({
            code: 'NOT_ALLOWED',
            node: change.node,
            attribute: 'status',
            message: `node ${q(change.node)} is new but its status is ${status}: the ${driver} may add nodes that are ${NEW_NODE_STATUSES[driver].join(', ')}`,
            fix: `add it as status="pending" and let it run`,
          });
        } else if (status === 'awaiting_input' && !change.attributes.question?.trim()) {
          problems.push({
            code: 'NOT_ALLOWED',
            node: change.node,
            attribute: 'question',
            message: `node ${q(change.node)} waits for an answer but asks no question`,
            fix: 'give it a question',
          });
        }
        for (const key of ['toolOutput', 'answer', 'error'] as const) {
          if (change.attributes[key] !== undefined) problems.push(history(change.node, key, 'a new node has no recorded result'));
        }
        for (const attribute of Object.keys(change.attributes)) {
          const fixed = fixedNodeAttribute(attribute, driver);
          if (fixed) problems.push(fixedProblem(fixed, attribute, driver, { node: change.node, added: true }));
        }
        break;
      }
      case 'node-removed': {
        const status = statuses.get(change.node) ?? 'pending';
        if (!REMOVABLE[driver].includes(status)) {
          const ran = !['pending', 'ready', 'skipped'].includes(status);
          problems.push({
            code: ran ? 'NODE_REMOVE_RUN' : 'NOT_ALLOWED',
            node: change.node,
            message: ran
              ? `node ${q(change.node)} is ${status}: a node that has run (or runs) stays in the plan as its history`
              : `node ${q(change.node)} is ${status}: the ${driver} may remove only nodes that are ${REMOVABLE[driver].join(', ')}`,
            fix: ran ? 'keep it; add a new node to redo its work' : 'keep it, or skip it',
          });
        }
        break;
      }
      case 'node-attribute':
        problems.push(...attributeProblems(change.node, change.attribute, change.from, change.to, statuses.get(change.node) ?? 'pending', driver));
        break;
      case 'edge-added':
      case 'edge-removed':
      case 'edge-attribute':
        if (!targetOpen(change.edge.to)) {
          problems.push({
            code: 'EDGE_INTO_STARTED',
            edge: edgeName(change.edge),
            node: change.edge.to,
            message: `edge ${edgeName(change.edge)}: node ${q(change.edge.to)} is ${statuses.get(change.edge.to)}; what it waits for can change only while it is pending`,
            fix: 'leave the edges into it as they are, or add a new node after it',
          });
        }
        break;
      case 'graph-attribute': {
        const fixed = fixedGraphAttribute(change.attribute, driver);
        if (fixed) problems.push(fixedProblem(fixed, change.attribute, driver, { from: change.from }));
        break;
      }
      case 'node-cluster':
      case 'cluster-added':
      case 'cluster-removed':
      case 'cluster-attribute':
        break; // how the plan is drawn: anyone
    }
  }
  problems.push(...startedEarly(changes, statuses, next));
  return problems;
}

/**
 * Nodes the revision starts (adds, or moves, as `ready` or `awaiting_input`) while a parent of
 * theirs, as the revision leaves it, has not finished: an edge means "waits for", whoever writes
 * the status.
 */
function startedEarly(changes: readonly PlanChange[], statuses: ReadonlyMap<string, NodeStatus>, next: Pick<PlanGraph, 'nodes' | 'edges'>): RightsProblem[] {
  const after = new Map(next.nodes.map((n) => [n.id, normaliseStatus(n.attributes.status ?? 'pending')]));
  const started = new Set<string>();
  for (const change of changes) {
    if (change.kind !== 'node-added' && !(change.kind === 'node-attribute' && change.attribute === 'status')) continue;
    const status = after.get(change.node);
    if (status !== undefined && STARTED.has(status) && statuses.get(change.node) !== status) started.add(change.node);
  }
  if (started.size === 0) return [];
  const parents = new Map<string, Array<{ id: string; status: NodeStatus }>>();
  for (const edge of next.edges) {
    if (!started.has(edge.to)) continue;
    const list = parents.get(edge.to) ?? [];
    if (!list.some((p) => p.id === edge.from)) list.push({ id: edge.from, status: after.get(edge.from) ?? 'pending' });
    parents.set(edge.to, list);
  }
  const problems: RightsProblem[] = [];
  for (const node of started) {
    const waiting = unfinishedParents(parents.get(node) ?? []);
    if (waiting.length === 0) continue;
    const status = after.get(node)!;
    const names = waiting.map((p) => `${q(p.id)} (${p.status})`).join(', ');
    const ids = waiting.map((p) => p.id).join(', ');
    problems.push({
      code: 'PARENTS_UNFINISHED',
      node,
      attribute: 'status',
      message: `node ${q(node)} cannot be ${status}: it waits for ${names}, which ${waiting.length === 1 ? 'has' : 'have'} not finished`,
      fix: `leave it status="pending" and mark it ${status} once ${ids} ${waiting.length === 1 ? 'has' : 'have'} finished (in a workflow plan the engine makes it ready then), or remove the edge${waiting.length === 1 ? '' : 's'} from ${ids}`,
    });
  }
  return problems;
}

/** A fixed attribute (fixed-attributes.ts) that the revision sets, adds, changes or removes. */
function fixedProblem(
  fixed: FixedAttribute,
  attribute: string,
  driver: RevisionDriver,
  where: { node?: string; added?: boolean; from?: string | undefined },
): RightsProblem {
  const kind = fixed.kind === 'limit' ? "one of the plan's limits" : fixed.kind === 'governance' ? 'part of how people govern the plan' : "the plan's own";
  const subject = where.node !== undefined ? `node ${q(where.node)}: ${attribute}` : `graph attribute ${attribute}`;
  const keep =
    where.node === undefined
      ? `leave ${attribute} out of the plan${where.from !== undefined ? ` (it stays ${JSON.stringify(where.from)})` : ''}`
      : where.added
        ? `leave ${attribute} out of node ${q(where.node)}${attribute === 'default' || attribute === 'answerTimeout' ? ': the node waits for a person' : ''}`
        : `keep ${attribute} of node ${q(where.node)} as it is`;
  return {
    code: 'NOT_ALLOWED',
    ...(where.node !== undefined ? { node: where.node } : {}),
    attribute,
    message: `${subject} is ${kind} (${fixed.what}): the ${driver} may not set or change it`,
    fix: driver === 'llm' ? `${keep}; the people who run the plan set it` : keep,
  };
}

function attributeProblems(
  node: string,
  attribute: string,
  from: string | undefined,
  to: string | undefined,
  status: NodeStatus,
  driver: RevisionDriver,
): RightsProblem[] {
  if (DISPLAY_ATTRIBUTES.has(attribute)) return [];
  // A live field left out of an edit is kept before changes are computed (live-fields.ts): one that is gone was deleted.
  if (LIVE_ATTRIBUTES.has(attribute) && to === undefined) return [history(node, attribute, 'a recorded value cannot be deleted')];
  if (attribute === 'status' && to !== undefined) {
    const target = normaliseStatus(to);
    if (!target) return [unknownStatus(node, to)];
    const current = normaliseStatus(from ?? status) ?? status;
    if (canMoveNode(current, target, driver)) return [];
    const allowed = allowedTargets(current, driver);
    return [
      {
        code: 'MOVE_REFUSED',
        node,
        attribute,
        message: `node ${q(node)}: the ${driver} may not move it from ${current} to ${target}`,
        fix: allowed.length > 0 ? `from ${current} the ${driver} may set status to ${allowed.join(', ')}` : `leave status="${current}" as it is`,
      },
    ];
  }
  if (LIVE_ATTRIBUTES.has(attribute)) return [history(node, attribute, `what the engine recorded is history`)];
  if (status === 'running') {
    return [
      {
        code: 'NODE_RUNNING',
        node,
        attribute,
        message: `node ${q(node)} is running: it cannot change while it runs`,
        fix: 'wait until it has finished, or cancel the plan',
      },
    ];
  }
  if (!EDITABLE[driver].includes(status)) {
    return [
      {
        code: 'NOT_ALLOWED',
        node,
        attribute,
        message: `node ${q(node)} is ${status}: the ${driver} may change the attributes of nodes that are ${EDITABLE[driver].join(', ')}`,
        fix: status === 'done' ? 'add a new node to redo its work' : `leave ${attribute} as it is`,
      },
    ];
  }
  const fixed = fixedNodeAttribute(attribute, driver);
  return fixed ? [fixedProblem(fixed, attribute, driver, { node })] : [];
}

function history(node: string, attribute: string, why: string): RightsProblem {
  return {
    code: 'NODE_HISTORY',
    node,
    attribute,
    message: `node ${q(node)}: ${attribute} cannot be written by hand (${why})`,
    fix: `leave ${attribute} out or as it was`,
  };
}

function unknownStatus(node: string, value: string): RightsProblem {
  return {
    code: 'STATUS_UNKNOWN',
    node,
    attribute: 'status',
    message: `node ${q(node)}: status ${q(value)} is not a status`,
    fix: 'use pending, ready, running, awaiting_input, done, failed, skipped or cancelled',
  };
}

const q = (s: string) => JSON.stringify(s);
