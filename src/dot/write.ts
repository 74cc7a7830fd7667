import { isImplicit } from '../model/serial-groups.js';
import type { Attributes, GraphCluster, PlanGraph } from '../model/types.js';
import { formatId, formatValue } from './strings.js';

/**
 * Writes a plan in pretty form, deterministically: graph attributes, then the nodes in order (each
 * with its full attribute list, inside its `subgraph cluster_*` block, nested clusters nested),
 * then the edges. No `node [...]`/`edge [...]` defaults are written, so `readDot(writeDot(g))`
 * gives back `g` (locations aside). Nodes and clusters keep their order: a cluster is reopened
 * (`subgraph cluster_x { ... }` again) only when the order requires it. Every edge must join two
 * listed nodes.
 */
export function writeDot(graph: PlanGraph): string {
  const out: string[] = [];
  const name = graph.name !== undefined ? `${formatId(graph.name)} ` : '';
  out.push(`${graph.strict ? 'strict ' : ''}digraph ${name}{`);
  for (const [key, value] of Object.entries(graph.attributes)) out.push(`  ${formatId(key)}=${formatValue(key, value)};`);

  const blocks = new ClusterBlocks(graph.clusters, out);
  for (const node of graph.nodes) {
    if (node.cluster !== undefined) blocks.openUpTo(node.cluster);
    blocks.moveTo(blocks.pathOf(node.cluster));
    out.push(`${blocks.indent()}${formatId(node.id)}${attributeList(node.attributes)};`);
  }
  blocks.openRemaining();
  blocks.moveTo([]);

  for (const edge of graph.edges) {
    if (isImplicit(edge)) continue; // a serial group's edge is the group's, not the text's
    out.push(`  ${formatId(edge.from)} -> ${formatId(edge.to)}${attributeList(edge.attributes)};`);
  }
  out.push('}');
  return `${out.join('\n')}\n`;
}

function attributeList(attributes: Attributes): string {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return '';
  return ` [${entries.map(([key, value]) => `${formatId(key)}=${formatValue(key, value)}`).join(', ')}]`;
}

/** Opens and closes `subgraph cluster_*` blocks so that clusters first appear in their order. */
class ClusterBlocks {
  private readonly byId: Map<string, GraphCluster>;
  private readonly opened = new Set<string>();
  private stack: string[] = [];
  private next = 0;

  constructor(
    private readonly clusters: readonly GraphCluster[],
    private readonly out: string[],
  ) {
    this.byId = new Map(clusters.map((c) => [c.id, c]));
  }

  indent(): string {
    return '  '.repeat(this.stack.length + 1);
  }

  /** The cluster ids from the outermost down to `id`. */
  pathOf(id: string | undefined): string[] {
    const path: string[] = [];
    for (let c = id; c !== undefined && !path.includes(c); c = this.byId.get(c)?.parent) path.unshift(c);
    return path;
  }

  /** Opens, in order, every cluster up to and including `id`. */
  openUpTo(id: string): void {
    if (this.opened.has(id)) return;
    while (this.next < this.clusters.length) {
      const cluster = this.clusters[this.next++]!;
      this.open(cluster);
      if (cluster.id === id) return;
    }
  }

  openRemaining(): void {
    while (this.next < this.clusters.length) this.open(this.clusters[this.next++]!);
  }

  /** Closes and (re)opens blocks until the open blocks are exactly `path`. */
  moveTo(path: string[]): void {
    let keep = 0;
    while (keep < this.stack.length && keep < path.length && this.stack[keep] === path[keep]) keep++;
    while (this.stack.length > keep) {
      this.stack.pop();
      this.out.push(`${this.indent()}}`);
    }
    for (const id of path.slice(keep)) {
      this.out.push(`${this.indent()}subgraph ${formatId(id)} {`);
      this.stack.push(id);
    }
  }

  private open(cluster: GraphCluster): void {
    if (this.opened.has(cluster.id)) return;
    this.moveTo(this.pathOf(cluster.parent));
    this.out.push(`${this.indent()}subgraph ${formatId(cluster.id)} {`);
    this.stack.push(cluster.id);
    this.opened.add(cluster.id);
    for (const [key, value] of Object.entries(cluster.attributes)) {
      this.out.push(`${this.indent()}${formatId(key)}=${formatValue(key, value)};`);
    }
  }
}
