import type { Diagnostic } from '../model/diagnostics.js';
import { normaliseStatus } from '../model/status.js';
import { NODE_TYPES, type GraphNode, type NodeStatus, type NodeType, type PlanGraph } from '../model/types.js';
import type { ValidateOptions } from './types.js';

/** Lookups every check shares, computed once per validation. */
export interface CheckContext {
  graph: PlanGraph;
  options: ValidateOptions;
  nodes: ReadonlyMap<string, GraphNode>;
  /** Direct predecessors (sources of edges into the node). */
  parents: ReadonlyMap<string, readonly string[]>;
  /** True when `candidate` is upstream of `id` (a path of edges leads from it to `id`). */
  isUpstream(candidate: string, id: string): boolean;
  /** The node's type when it is a known one. */
  typeOf(node: GraphNode): NodeType | undefined;
  /** The node's canonical status; `pending` when absent; undefined when unknown. */
  statusOf(node: GraphNode): NodeStatus | undefined;
}

export type Check = (ctx: CheckContext) => Diagnostic[];

export function createContext(graph: PlanGraph, options: ValidateOptions): CheckContext {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const parents = new Map<string, string[]>();
  for (const edge of graph.edges) {
    const list = parents.get(edge.to) ?? [];
    list.push(edge.from);
    parents.set(edge.to, list);
  }
  return {
    graph,
    options,
    nodes,
    parents,
    isUpstream(candidate, id) {
      const seen = new Set<string>();
      const stack = [id];
      while (stack.length > 0) {
        for (const parent of parents.get(stack.pop()!) ?? []) {
          if (parent === candidate) return true;
          if (!seen.has(parent)) {
            seen.add(parent);
            stack.push(parent);
          }
        }
      }
      return false;
    },
    typeOf(node) {
      const type = node.attributes['type'];
      return (NODE_TYPES as readonly string[]).includes(type ?? '') ? (type as NodeType) : undefined;
    },
    statusOf(node) {
      const status = node.attributes['status'];
      return status === undefined ? 'pending' : normaliseStatus(status);
    },
  };
}

/** `node`, `line`, `column` fields for a diagnostic about a node. */
export function atNode(node: GraphNode, attribute?: string): Pick<Diagnostic, 'node' | 'attribute' | 'line' | 'column'> {
  return {
    node: node.id,
    ...(attribute !== undefined ? { attribute } : {}),
    ...(node.location ? { line: node.location.line, column: node.location.column } : {}),
  };
}

/** `"a"` for messages: ids may hold spaces or be numbers. */
export function q(value: string): string {
  return JSON.stringify(value);
}
