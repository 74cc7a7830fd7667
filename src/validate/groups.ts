import type { Diagnostic } from '../model/diagnostics.js';
import { isImplicit, serialGroups } from '../model/serial-groups.js';
import { q, type Check } from './context.js';

/**
 * Task groups (`subgraph cluster_x { parallel=true|false }`): `parallel` is true or false; in a
 * serial group an explicit edge may not run against the declaration order (from a later member to an
 * earlier one) — the group's order and the edge would wait on each other.
 */
export const checkGroups: Check = (ctx) => {
  const out: Diagnostic[] = [];
  for (const cluster of ctx.graph.clusters) {
    const value = cluster.attributes.parallel;
    if (value !== undefined && value !== 'true' && value !== 'false') {
      out.push({
        code: 'GROUP_PARALLEL_INVALID',
        severity: 'error',
        message: `parallel of group ${q(cluster.id)} is ${q(value)}`,
        ...(cluster.location ? { line: cluster.location.line, column: cluster.location.column } : {}),
        attribute: 'parallel',
        fix: 'write parallel=true (its nodes run side by side, the default) or parallel=false (one after another, in the order written)',
      });
    }
  }
  for (const { cluster, members } of serialGroups(ctx.graph)) {
    const order = new Map(members.map((id, index) => [id, index]));
    for (const edge of ctx.graph.edges) {
      if (isImplicit(edge)) continue;
      const from = order.get(edge.from);
      const to = order.get(edge.to);
      if (from === undefined || to === undefined || from < to) continue;
      out.push({
        code: 'GROUP_ORDER_CONFLICT',
        severity: 'error',
        message: `edge ${edge.from} -> ${edge.to} runs against the order of serial group ${q(cluster)} (parallel=false), where ${q(edge.to)} comes before ${q(edge.from)}`,
        ...(edge.location ? { line: edge.location.line, column: edge.location.column } : {}),
        edge: { from: edge.from, to: edge.to },
        fix: `remove the edge, declare ${edge.from} before ${edge.to} in the group, or make the group parallel=true`,
      });
    }
  }
  return out;
};
