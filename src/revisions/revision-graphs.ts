import { NO_DOT_LIMITS, readDot } from '../dot/index.js';
import type { PlanGraph } from '../model/types.js';

/**
 * Parsed revisions: a revision's text never changes once written, so each process reads a revision
 * into a graph once and keeps the last few (a rewrite of a large plan would otherwise parse the same
 * revision two or three times). Callers treat the graphs as read-only.
 */
const SIZE = 16;
const graphs = new Map<string, PlanGraph>();

export function revisionGraph(planId: string, number: number, dot: string): PlanGraph {
  const key = `${planId}\u0000${number}`;
  const hit = graphs.get(key);
  if (hit) {
    graphs.delete(key);
    graphs.set(key, hit);
    return hit;
  }
  const graph = readDot(dot, { source: `plan ${planId} revision ${number}`, ...NO_DOT_LIMITS });
  remember(key, graph);
  return graph;
}

/** The graph a new revision was written from (its text reads back to it). */
export function rememberRevision(planId: string, number: number, graph: PlanGraph): void {
  remember(`${planId}\u0000${number}`, graph);
}

function remember(key: string, graph: PlanGraph): void {
  graphs.set(key, graph);
  if (graphs.size > SIZE) graphs.delete(graphs.keys().next().value!);
}
