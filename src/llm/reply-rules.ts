import type { Diagnostic } from '../model/diagnostics.js';
import { normaliseStatus } from '../model/status.js';
import type { PlanGraph } from '../model/types.js';

/**
 * What an LLM's plan must do besides being valid and within its rights: in reflection mode the
 * engine never makes a pending node ready by itself (SPEC §6), so a plan that leaves pending nodes
 * but marks none to run — nothing ready, running or waiting for a person — would stall.
 */
/** A node the LLM adds under the id of one removed earlier: its history (events, calls) would read as the new node's. */
export function reusedIds(next: PlanGraph, current: ReadonlySet<string>, removed: ReadonlySet<string>): Diagnostic[] {
  return next.nodes
    .filter((n) => removed.has(n.id) && !current.has(n.id))
    .map((n) => ({
      code: 'REPLY_ID_REUSED',
      severity: 'error' as const,
      message: `node "${n.id}" has the id of a node removed from the plan earlier`,
      node: n.id,
      ...(n.location ? { line: n.location.line } : {}),
      fix: `give the new node an id never used in this plan, e.g. "${n.id}_2"`,
    }));
}

export function nothingToRun(next: PlanGraph): Diagnostic[] {
  const statuses = next.nodes.map((n) => normaliseStatus(n.attributes.status ?? 'pending') ?? 'pending');
  if (!statuses.includes('pending') || statuses.some((s) => s === 'ready' || s === 'running' || s === 'awaiting_input')) return [];
  return [
    {
      code: 'REPLY_NOTHING_TO_RUN',
      severity: 'error',
      message: 'the plan has pending nodes but none is ready, running or waiting for an answer, so nothing would run',
      fix: 'mark the nodes that should run next status="ready" (or skip the ones that are not needed)',
    },
  ];
}
