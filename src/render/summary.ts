import type { Graph as VizGraph, Node as VizNode } from '@viz-js/viz';
import { normaliseStatus } from '../model/status.js';
import { NODE_STATUSES, type NodeStatus, type PlanGraph } from '../model/types.js';
import { STATUS_COLOURS, UNKNOWN_STATUS_COLOUR } from './colours.js';
import { count } from './size.js';
import { escapeText, LAYOUT_FONT } from './viz-graph.js';

/**
 * A plan too large to draw node by node, as a small graph: one box per status that occurs, with
 * the number of nodes in it, coloured as the full drawing colours them, and the plan's title with
 * `note` (why it is drawn so) as the label.
 */
export function summaryVizGraph(graph: PlanGraph, note: string): VizGraph {
  const counts = new Map<NodeStatus | 'unknown', number>();
  for (const node of graph.nodes) {
    const raw = node.attributes.status;
    const status = raw === undefined || raw.trim() === '' ? 'pending' : (normaliseStatus(raw) ?? 'unknown');
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  const nodes: VizNode[] = [...NODE_STATUSES, 'unknown' as const]
    .filter((status) => counts.has(status))
    .map((status) => {
      const colour = status === 'unknown' ? UNKNOWN_STATUS_COLOUR : STATUS_COLOURS[status];
      return {
        name: `status_${status}`,
        attributes: {
          label: `${status.replace('_', ' ')}\\n${count(counts.get(status)!)}`,
          shape: 'box',
          style: ['filled', 'rounded', ...(colour.style ? [colour.style] : [])].join(','),
          fillcolor: colour.fill,
          color: colour.border,
          fontcolor: colour.font,
          class: `summary status-${status}`,
        },
      };
    });
  const title = graph.attributes.label ?? graph.name;
  return {
    directed: true,
    graphAttributes: {
      fontname: LAYOUT_FONT,
      labelloc: 't',
      rankdir: 'LR',
      label: escapeText(`${title !== undefined ? `${title}\\n` : ''}${note}`),
      class: 'summary',
    },
    nodeAttributes: { fontname: LAYOUT_FONT, fontsize: 12 },
    nodes,
  };
}
