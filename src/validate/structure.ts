import type { Diagnostic } from '../model/diagnostics.js';
import { STATUS_ALIASES } from '../model/status.js';
import { NODE_STATUSES, NODE_TYPES, type GraphEdge } from '../model/types.js';
import { atNode, q, type Check } from './context.js';
import { suggestFix, suggester } from './suggest.js';

/**
 * Every node is declared (has attributes, not only an edge mention), once, with a known `type` and
 * `status`; edges join declared nodes; agent nodes only where allowed.
 */
export const checkStructure: Check = (ctx) => {
  const out: Diagnostic[] = [];
  const { graph, options } = ctx;
  const declared = graph.nodes.filter((n) => Object.keys(n.attributes).length > 0).map((n) => n.id);
  const suggestNode = suggester(declared);
  const seen = new Set<string>();
  // The first edge that mentions each node, found in one pass (not one search per undeclared node).
  const firstEdge = new Map<string, GraphEdge>();
  for (const edge of graph.edges) for (const end of [edge.from, edge.to]) if (!firstEdge.has(end)) firstEdge.set(end, edge);

  if (graph.nodes.length === 0) {
    out.push({
      code: 'GRAPH_NO_NODES',
      severity: 'warning',
      message: 'the plan has no nodes, so there is nothing to run',
      fix: 'add a node: a [type="function", status="pending", toolCode="echo"]',
    });
  }
  for (const node of graph.nodes) {
    if (seen.has(node.id)) {
      out.push({ code: 'NODE_DUPLICATE', severity: 'error', message: `node ${q(node.id)} is listed twice`, ...atNode(node), fix: 'give each node its own id' });
    }
    seen.add(node.id);
    if (Object.keys(node.attributes).length === 0) {
      const edge = firstEdge.get(node.id);
      const mention = edge ? ` (in the edge ${q(edge.from)} -> ${q(edge.to)})` : '';
      out.push({
        code: 'NODE_UNDECLARED',
        severity: 'error',
        message: `node ${q(node.id)} is only mentioned${mention} and never declared with attributes, so it has no type or status`,
        ...atNode(node),
        fix: suggestNode(node.id, `declare it: ${node.id} [type="function", status="pending", toolCode="echo"], or correct the edge`),
      });
      continue;
    }
    const type = node.attributes['type'];
    if (type === undefined || type.trim() === '') {
      out.push({
        code: 'TYPE_MISSING',
        severity: 'error',
        message: `node ${q(node.id)} has no type (allowed: ${NODE_TYPES.join(', ')})`,
        ...atNode(node, 'type'),
        fix: 'add type="function" (a tool), "multiFunction" (several tools), "confirm" (ask a person) or "agent"',
      });
    } else if (!ctx.typeOf(node)) {
      out.push({
        code: 'TYPE_UNKNOWN',
        severity: 'error',
        message: `type ${q(type)} of node ${q(node.id)} is not a node type (allowed: ${NODE_TYPES.join(', ')})`,
        ...atNode(node, 'type'),
        fix: suggestFix(type, NODE_TYPES, `use one of ${NODE_TYPES.join(', ')}`),
      });
    } else if (type === 'agent' && options.allowAgent === false) {
      out.push({
        code: 'NODE_TYPE_NOT_SUPPORTED',
        severity: 'error',
        message: `node ${q(node.id)} is an agent node, which this engine does not run yet`,
        ...atNode(node, 'type'),
        fix: 'replace it with function, multiFunction or confirm nodes',
      });
    }
    const status = node.attributes['status'];
    // No status is no problem: a new node is pending, a node an edit or a reply leaves it out of keeps its own.
    if (status !== undefined && !ctx.statusOf(node)) {
      const allowed = [...NODE_STATUSES, ...Object.keys(STATUS_ALIASES)];
      out.push({
        code: 'STATUS_UNKNOWN',
        severity: 'error',
        message: `status ${q(status)} of node ${q(node.id)} is not a status (allowed: ${NODE_STATUSES.join(', ')}, or the Chinese names ${Object.keys(STATUS_ALIASES).join(', ')})`,
        ...atNode(node, 'status'),
        fix: suggestFix(status, allowed, `use one of ${NODE_STATUSES.join(', ')}`),
      });
    }
  }
  for (const edge of graph.edges) {
    for (const end of [edge.from, edge.to]) {
      if (ctx.nodes.has(end)) continue;
      out.push({
        code: 'EDGE_UNKNOWN_NODE',
        severity: 'error',
        message: `the edge ${q(edge.from)} -> ${q(edge.to)} names node ${q(end)}, which is not in the plan`,
        edge: { from: edge.from, to: edge.to },
        ...(edge.location ? { line: edge.location.line, column: edge.location.column } : {}),
        fix: suggestNode(end, `add the node or remove the edge`),
      });
    }
  }
  return out;
};
