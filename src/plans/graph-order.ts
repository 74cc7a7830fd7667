/**
 * Nodes in graph order, as people read a plan: every node after the nodes it waits for, and
 * otherwise in the order given (a plan's stored order: as its first revision declared them, then
 * as later revisions added them). Kahn's algorithm, always taking the earliest node that may come
 * next; nodes on a cycle (never in a valid plan) follow in the order given.
 */
export function graphOrder<T extends { id: string }>(nodes: readonly T[], edges: readonly { from: string; to: string }[]): T[] {
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const waitsFor = new Array<number>(nodes.length).fill(0);
  const next = nodes.map((): number[] => []);
  for (const { from, to } of edges) {
    const a = index.get(from);
    const b = index.get(to);
    if (a === undefined || b === undefined || a === b) continue;
    next[a]!.push(b);
    waitsFor[b]!++;
  }
  const free = new MinHeap();
  waitsFor.forEach((count, i) => count === 0 && free.push(i));
  const order: T[] = [];
  const placed = new Array<boolean>(nodes.length).fill(false);
  for (let i = free.pop(); i !== undefined; i = free.pop()) {
    order.push(nodes[i]!);
    placed[i] = true;
    for (const j of next[i]!) if (--waitsFor[j]! === 0) free.push(j);
  }
  if (order.length < nodes.length) order.push(...nodes.filter((_, i) => !placed[i]));
  return order;
}

/** A binary heap of indexes, smallest first. */
class MinHeap {
  private readonly items: number[] = [];

  push(value: number): void {
    const items = this.items;
    items.push(value);
    for (let i = items.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (items[parent]! <= value) break;
      items[i] = items[parent]!;
      items[parent] = value;
      i = parent;
    }
  }

  pop(): number | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    for (let i = 0; ;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && items[left]! < items[smallest]!) smallest = left;
      if (right < items.length && items[right]! < items[smallest]!) smallest = right;
      if (smallest === i) break;
      [items[i], items[smallest]] = [items[smallest]!, items[i]!];
      i = smallest;
    }
    return top;
  }
}
