import { edgeName, type PlanChange } from './diff.js';

/**
 * A plan diff for a terminal: one line per change, `+` added, `-` removed, `~` changed, grouped as
 * the diff lists them (graph, clusters, nodes, edges); coloured (green, red, yellow) when asked.
 * Long values are cut in the middle so that each line stays readable.
 */
export interface FormatOptions {
  color?: boolean;
  /** Longest value shown in full (default 60 characters). */
  width?: number;
}

const COLORS = { '+': '\u001b[32m', '-': '\u001b[31m', '~': '\u001b[33m' } as const;
const RESET = '\u001b[0m';

export function formatDiff(changes: readonly PlanChange[], options: FormatOptions = {}): string {
  if (changes.length === 0) return 'no change';
  const width = options.width ?? 60;
  const value = (v: string | undefined) => (v === undefined ? '(unset)' : JSON.stringify(cut(v, width)));
  const lines = changes.map((change): [keyof typeof COLORS, string] => {
    switch (change.kind) {
      case 'graph-attribute':
        return ['~', `graph ${change.attribute}: ${value(change.from)} → ${value(change.to)}`];
      case 'cluster-added':
        return ['+', `cluster ${change.cluster}${attributeList(change.attributes, width)}`];
      case 'cluster-removed':
        return ['-', `cluster ${change.cluster}`];
      case 'cluster-attribute':
        return ['~', `cluster ${change.cluster} ${change.attribute}: ${value(change.from)} → ${value(change.to)}`];
      case 'node-added':
        return ['+', `node ${change.node}${attributeList(change.attributes, width)}`];
      case 'node-removed':
        return ['-', `node ${change.node}`];
      case 'node-attribute':
        return ['~', `node ${change.node} ${change.attribute}: ${value(change.from)} → ${value(change.to)}`];
      case 'node-cluster':
        return ['~', `node ${change.node} cluster: ${change.from ?? '(none)'} → ${change.to ?? '(none)'}`];
      case 'edge-added':
        return ['+', `edge ${edgeName(change.edge)}${attributeList(change.attributes, width)}`];
      case 'edge-removed':
        return ['-', `edge ${edgeName(change.edge)}`];
      case 'edge-attribute':
        return ['~', `edge ${edgeName(change.edge)} ${change.attribute}: ${value(change.from)} → ${value(change.to)}`];
    }
  });
  return lines.map(([mark, text]) => (options.color ? `${COLORS[mark]}${mark} ${text}${RESET}` : `${mark} ${text}`)).join('\n');
}

function attributeList(attributes: Record<string, string>, width: number): string {
  const entries = Object.entries(attributes);
  return entries.length === 0 ? '' : ` [${entries.map(([k, v]) => `${k}=${JSON.stringify(cut(v, width))}`).join(' ')}]`;
}

function cut(text: string, width: number): string {
  if (text.length <= width) return text;
  const half = Math.floor((width - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(text.length - half)}`;
}
