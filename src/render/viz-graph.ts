import { isImplicit, withSerialEdges } from '../model/serial-groups.js';
import type { Attributes as VizAttributes, Graph as VizGraph, Node as VizNode, Subgraph as VizSubgraph } from '@viz-js/viz';
import { normaliseStatus } from '../model/status.js';
import { NODE_STATUSES, type GraphNode, type NodeStatus, type PlanGraph } from '../model/types.js';
import { STATUS_COLOURS, UNKNOWN_STATUS_COLOUR } from './colours.js';

export interface RenderOptions {
  /** Draw a legend of the statuses that occur in the plan (default true). */
  legend?: boolean;
  /** Layout direction; default: the graph's own `rankdir`, else top to bottom. */
  rankdir?: 'TB' | 'LR' | 'BT' | 'RL';
  /** Agent nodes' child plans by node id (the latest attempt's): drawn under the node's label. */
  children?: ReadonlyMap<string, ChildMark>;
}

/** What an agent node's drawing says of its child plan. */
export interface ChildMark {
  status: string;
  /** The agent instance running it (`searcher_001`). */
  instance?: string;
}

/** Graph attributes that only affect the drawing and are passed to Graphviz as they are. */
const DISPLAY_GRAPH_ATTRIBUTES = ['rankdir', 'bgcolor', 'splines', 'nodesep', 'ranksep', 'labelloc', 'labeljust'];
/**
 * Graphviz sizes boxes from its own metrics of a few named fonts, and from narrow Times' for any
 * other name — a list such as "Helvetica,Arial,sans-serif" included, so labels drawn in a sans-serif
 * font overflowed their boxes, the legend's cells and the drawing. The layout is measured as DejaVu
 * Sans, the widest of the usual sans-serif fonts (Linux's default); the SVG asks for it first and
 * falls back to narrower ones (`SVG_FONT_FAMILY`), which fit the boxes as well.
 */
export const LAYOUT_FONT = 'DejaVu Sans';
export const SVG_FONT_FAMILY = 'DejaVu Sans,Helvetica,Arial,sans-serif';
const FONT = LAYOUT_FONT;

/**
 * The plan as a @viz-js/viz graph object: only display attributes (label, shape, status colours,
 * a tooltip and an SVG class `status-<status> type-<type>`), clusters as subgraphs with their labels,
 * conditional edges labelled with their `when`. Plan attributes such as toolInput are left out.
 */
export function toVizGraph(graph: PlanGraph, options: RenderOptions = {}): VizGraph {
  const graphAttributes: VizAttributes = { fontname: FONT, labelloc: 't' };
  for (const key of DISPLAY_GRAPH_ATTRIBUTES) {
    const value = graph.attributes[key];
    if (value !== undefined) graphAttributes[key] = value;
  }
  if (options.rankdir) graphAttributes.rankdir = options.rankdir;
  if (graph.attributes.label) graphAttributes.label = escapeText(graph.attributes.label);

  const statuses = new Map(graph.nodes.map((n) => [n.id, nodeStatus(n)]));
  const root: VizSubgraph = { nodes: [], subgraphs: [] };
  const clusters = new Map<string, VizSubgraph>();
  for (const cluster of graph.clusters) {
    const label = cluster.attributes.label;
    clusters.set(cluster.id, {
      name: cluster.id,
      graphAttributes: { style: 'rounded', color: '#94a3b8', fontcolor: '#475569', ...(label ? { label: escapeText(label) } : {}) },
      nodes: [],
      subgraphs: [],
    });
  }
  for (const cluster of graph.clusters) {
    const parent = (cluster.parent !== undefined && clusters.get(cluster.parent)) || root;
    parent.subgraphs!.push(clusters.get(cluster.id)!);
  }
  for (const node of graph.nodes) {
    const home = (node.cluster !== undefined && clusters.get(node.cluster)) || root;
    home.nodes!.push(vizNode(node, statuses.get(node.id), options.children?.get(node.id)));
  }

  const edges = withSerialEdges(graph).edges.map((edge) => {
    const attributes: VizAttributes = {};
    if (isImplicit(edge)) Object.assign(attributes, { style: 'dashed', tooltip: `serial group ${edge.attributes.implicit ?? ''}` });
    const label = edge.attributes.label ?? (edge.attributes.when ? `when ${edge.attributes.when}` : undefined);
    if (label) attributes.label = escapeText(label);
    const target = statuses.get(edge.to);
    if (target === 'skipped' || target === 'cancelled') Object.assign(attributes, { style: 'dashed', color: '#a8a29e' });
    return { tail: edge.from, head: edge.to, attributes };
  });

  if (options.legend ?? true) {
    const legend = legendNode(graph, new Set([...statuses.values()].filter((s): s is NodeStatus => s !== undefined)));
    if (legend) root.nodes!.push(legend);
  }

  return {
    ...(graph.name !== undefined ? { name: graph.name } : {}),
    directed: true,
    strict: graph.strict,
    graphAttributes,
    nodeAttributes: { fontname: FONT, fontsize: 12 },
    edgeAttributes: { fontname: FONT, fontsize: 10, color: '#64748b', fontcolor: '#475569' },
    nodes: root.nodes,
    edges,
    subgraphs: root.subgraphs,
  };
}

/** Canonical status of a node: missing means pending; an unknown value gives undefined. */
function nodeStatus(node: GraphNode): NodeStatus | undefined {
  const raw = node.attributes.status;
  return raw === undefined || raw.trim() === '' ? 'pending' : normaliseStatus(raw);
}

function vizNode(node: GraphNode, status: NodeStatus | undefined, child: ChildMark | undefined): VizNode {
  const type = node.attributes.type ?? 'function';
  const colour = status ? STATUS_COLOURS[status] : UNKNOWN_STATUS_COLOUR;
  const shape = node.attributes.shape ?? (type === 'confirm' ? 'ellipse' : 'box');
  const own = node.attributes.label?.trim() ? node.attributes.label : node.id;
  // An agent node says how its child plan stands, under its label (not in a record's fields).
  const childLine = child ? `${child.instance ?? 'child plan'}: ${child.status}` : undefined;
  const record = shape === 'record' || shape === 'Mrecord';
  const style = ['filled', ...(shape === 'box' || record ? ['rounded'] : []), ...(colour.style ? [colour.style] : [])];
  return {
    name: node.id,
    attributes: {
      label: record ? escapeRecord(own) : `${escapeText(own)}${childLine !== undefined ? `\\n${escapeText(childLine)}` : ''}`,
      shape,
      style: style.join(','),
      fillcolor: colour.fill,
      color: colour.border,
      fontcolor: colour.font,
      tooltip: escapeText(`${node.id} · ${type} · ${status ?? node.attributes.status ?? '?'}${childLine !== undefined ? ` · ${childLine}` : ''}`),
      class: `status-${status ?? 'unknown'} type-${type.replace(/[^\w-]/g, '_')}${child ? ` child-${child.status.replace(/[^\w-]/g, '_')}` : ''}`,
      // An agent node runs a plan of its own: a double border.
      ...(type === 'agent' ? { peripheries: 2 } : {}),
    },
  };
}

/** One node whose HTML table shows the colour of each status that occurs in the plan. */
function legendNode(graph: PlanGraph, used: ReadonlySet<NodeStatus>): VizNode | undefined {
  const statuses = NODE_STATUSES.filter((s) => used.has(s));
  if (statuses.length === 0) return undefined;
  let name = '__legend__';
  while (graph.nodes.some((n) => n.id === name)) name = `_${name}_`;
  const cells = statuses
    .map(
      (s) =>
        `<td bgcolor="${STATUS_COLOURS[s].fill}" color="${STATUS_COLOURS[s].border}"><font color="${STATUS_COLOURS[s].font}">${s.replace('_', ' ')}</font></td>`,
    )
    .join('');
  return {
    name,
    attributes: {
      shape: 'plain',
      label: { html: `<table border="0" cellborder="1" cellspacing="2" cellpadding="4"><tr>${cells}</tr></table>` },
      tooltip: 'status colours',
      class: 'legend',
    },
  };
}

/**
 * Labels as Graphviz shows them: the line breaks `\n` (centred), `\l` (left-justified) and `\r`
 * (right-justified) work as in Graphviz; any other backslash is shown as written (so `\N` is not
 * replaced by the node's name).
 */
export function escapeText(text: string): string {
  return text.replace(/\\(?![nlr])/g, '\\\\');
}

/** Record labels also treat `{ } | < >` as structure. */
export function escapeRecord(text: string): string {
  return escapeText(text).replace(/([{}|<>])/g, '\\$1');
}
