import type { AttributeASTNode, ClusterStatementASTNode, EdgeTargetASTNode, FileRange, GraphASTNode, LiteralASTNode } from 'ts-graphviz/ast';
import type { Attributes, GraphCluster, GraphEdge, GraphNode, PlanGraph, SourceLocation } from '../model/types.js';
import { setAttribute } from './attributes.js';
import { unquote } from './strings.js';

/** Gives the original text between two offsets of the parsed text. */
export type SliceOriginal = (from: number, to: number) => string;

/**
 * Where parsed statements stand in the original text: their offsets through `slice`; their lines
 * `lines` further down, and on their first line `columns` further right (a piece parsed on its own,
 * pieces.ts; both 0 for the whole text).
 */
export interface TextPlace {
  slice: SliceOriginal;
  lines: number;
  columns: number;
}

/** Default attributes and the cluster in force where a statement stands. */
interface Scope {
  nodeDefaults: Attributes;
  edgeDefaults: Attributes;
  /** Innermost enclosing cluster. */
  cluster?: string;
  /** Where `key=value` and `graph [...]` go: the root graph's or a cluster's attributes. */
  graphAttributes?: Attributes;
}

/**
 * Walks one parsed `digraph` into a PlanGraph with Graphviz's semantics: `node [...]`/`edge [...]`
 * defaults apply to later statements of their (sub)graph, a node gets defaults only when it is
 * created, re-mentions merge attributes, chains and `{a b}` groups become pairs, and a strict graph
 * merges repeated edges.
 */
export function walkGraph(graph: GraphASTNode, sliceOriginal: SliceOriginal): PlanGraph {
  const place = { slice: sliceOriginal, lines: 0, columns: 0 };
  const walker = graphWalker(graph.strict);
  walker.statements(graph.children, place);
  return walker.finish(graph.id, place);
}

/** Feeds a graph's top-level statements in order, in as many pieces as wanted (pieces.ts), then gives the PlanGraph. */
export interface GraphWalker {
  /** The next top-level statements, and where they stand in the original text. */
  statements(children: readonly ClusterStatementASTNode[], place: TextPlace): void;
  finish(id: LiteralASTNode | undefined, place: TextPlace): PlanGraph;
}

export function graphWalker(strict: boolean): GraphWalker {
  const nodes = new Map<string, GraphNode>();
  const clusters = new Map<string, GraphCluster>();
  const edges: GraphEdge[] = [];
  const edgeIndex = new Map<string, GraphEdge>();
  const attributes: Attributes = {};
  // The top level's scope lives across pieces: its defaults hold for every later statement.
  const top: Scope = { nodeDefaults: {}, edgeDefaults: {}, graphAttributes: attributes };
  let place: TextPlace = { slice: () => '', lines: 0, columns: 0 };

  const text = (literal: LiteralASTNode): string => {
    const range = literal.location;
    if (!range || literal.quoted === false) return literal.value;
    const raw = place.slice(range.start.offset, range.end.offset);
    return literal.quoted === 'html' ? raw : unquote(raw.slice(1, -1));
  };

  const isWithin = (cluster: string, ancestor: string): boolean => {
    for (let c: string | undefined = cluster; c !== undefined; c = clusters.get(c)?.parent) {
      if (c === ancestor) return true;
    }
    return false;
  };

  const touchNode = (id: string, scope: Scope, range: FileRange | undefined, own?: Attributes): void => {
    let node = nodes.get(id);
    if (!node) {
      node = { id, attributes: { ...scope.nodeDefaults } };
      if (scope.cluster !== undefined) node.cluster = scope.cluster;
      if (range) node.location = at(range);
      nodes.set(id, node);
    } else if (scope.cluster !== undefined && (node.cluster === undefined || isWithin(scope.cluster, node.cluster))) {
      node.cluster = scope.cluster;
    }
    if (own) mergeInto(node.attributes, own);
  };

  const addEdge = (from: string, to: string, own: Attributes, range: FileRange | undefined): void => {
    const key = JSON.stringify([from, to]);
    const existing = strict ? edgeIndex.get(key) : undefined;
    if (existing) {
      mergeInto(existing.attributes, own);
      return;
    }
    const edge: GraphEdge = { from, to, attributes: own };
    if (range) edge.location = at(range);
    edges.push(edge);
    edgeIndex.set(key, edge);
  };

  const attributeList = (children: readonly { type: string }[]): Attributes => {
    const out: Attributes = {};
    for (const child of children) {
      if (child.type === 'Attribute') {
        const a = child as AttributeASTNode;
        setAttribute(out, text(a.key), text(a.value));
      }
    }
    return out;
  };

  const targetIds = (target: EdgeTargetASTNode): { id: string; range: FileRange | undefined }[] =>
    target.type === 'NodeRef' ? [{ id: text(target.id), range: target.location }] : target.children.map((ref) => ({ id: text(ref.id), range: ref.location }));

  const walk = (statements: readonly ClusterStatementASTNode[], scope: Scope): void => {
    for (const stmt of statements) {
      switch (stmt.type) {
        case 'Attribute':
          if (scope.graphAttributes) setAttribute(scope.graphAttributes, text(stmt.key), text(stmt.value));
          break;
        case 'AttributeList': {
          const list = attributeList(stmt.children);
          if (stmt.kind === 'Node') scope.nodeDefaults = { ...scope.nodeDefaults, ...list };
          else if (stmt.kind === 'Edge') scope.edgeDefaults = { ...scope.edgeDefaults, ...list };
          else if (scope.graphAttributes) mergeInto(scope.graphAttributes, list);
          break;
        }
        case 'Node':
          touchNode(text(stmt.id), scope, stmt.location, attributeList(stmt.children));
          break;
        case 'Edge': {
          const groups = stmt.targets.map(targetIds);
          for (const group of groups) for (const { id, range } of group) touchNode(id, scope, range);
          const own = attributeList(stmt.children);
          for (let i = 0; i + 1 < groups.length; i++) {
            for (const from of groups[i]!) {
              for (const to of groups[i + 1]!) addEdge(from.id, to.id, { ...scope.edgeDefaults, ...own }, from.range);
            }
          }
          break;
        }
        case 'Subgraph': {
          const id = stmt.id ? text(stmt.id) : undefined;
          const inner: Scope = { nodeDefaults: { ...scope.nodeDefaults }, edgeDefaults: { ...scope.edgeDefaults } };
          if (scope.cluster !== undefined) inner.cluster = scope.cluster;
          if (id !== undefined && id.startsWith('cluster')) {
            let cluster = clusters.get(id);
            if (!cluster) {
              cluster = { id, attributes: {} };
              if (scope.cluster !== undefined) cluster.parent = scope.cluster;
              if (stmt.location) cluster.location = at(stmt.location);
              clusters.set(id, cluster);
            }
            inner.cluster = id;
            inner.graphAttributes = cluster.attributes;
          }
          walk(stmt.children, inner);
          break;
        }
        case 'Comment':
          break;
      }
    }
  };

  const at = (range: FileRange): SourceLocation => {
    const { line, column } = range.start;
    return { line: line + place.lines, column: line === 1 ? column + place.columns : column };
  };

  return {
    statements(children, where) {
      place = where;
      walk(children, top);
    },
    finish(id, where) {
      place = where;
      const plan: PlanGraph = { strict, attributes, nodes: [...nodes.values()], edges, clusters: [...clusters.values()] };
      if (id) plan.name = text(id);
      return plan;
    },
  };
}

function mergeInto(target: Attributes, source: Attributes): void {
  for (const [key, value] of Object.entries(source)) setAttribute(target, key, value);
}
