import type { Diagnostic } from '../model/diagnostics.js';
import { atNode, q, type Check, type CheckContext } from './context.js';

/** The plan must be acyclic: self-loops and longer cycles are named node by node. */
export const checkCycles: Check = (ctx) => {
  const out: Diagnostic[] = [];
  const children = new Map<string, string[]>();
  for (const edge of ctx.graph.edges) {
    if (edge.from === edge.to) {
      out.push({
        code: 'SELF_LOOP',
        severity: 'error',
        message: `node ${q(edge.from)} depends on itself (edge ${q(edge.from)} -> ${q(edge.to)})`,
        node: edge.from,
        edge: { from: edge.from, to: edge.to },
        ...(edge.location ? { line: edge.location.line, column: edge.location.column } : {}),
        fix: `remove the edge ${edge.from} -> ${edge.to}`,
      });
      continue;
    }
    const list = children.get(edge.from) ?? [];
    list.push(edge.to);
    children.set(edge.from, list);
  }
  for (const component of stronglyConnected(ctx, children)) {
    if (component.length < 2) continue;
    const cycle = findCycle(component, children);
    const start = ctx.nodes.get(cycle[0]!);
    const path = cycle.map((id) => q(id)).join(' -> ');
    out.push({
      code: 'CYCLE',
      severity: 'error',
      message: `the plan has a cycle: ${path}; a plan must be acyclic (an edge a -> b means b waits for a)`,
      ...(start ? atNode(start) : { node: cycle[0]! }),
      fix: `remove one of the edges of the cycle, e.g. ${cycle[cycle.length - 2]} -> ${cycle[cycle.length - 1]}`,
    });
  }
  return out;
};

/** Tarjan's algorithm, iterative (plans may hold thousands of nodes). Components in node order. */
function stronglyConnected(ctx: CheckContext, children: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of ctx.graph.nodes.map((n) => n.id)) {
    if (index.has(root)) continue;
    const work: { id: string; next: number }[] = [{ id: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const successors = children.get(frame.id) ?? [];
      if (frame.next < successors.length) {
        const child = successors[frame.next++]!;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ id: child, next: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.id, Math.min(low.get(frame.id)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) === index.get(frame.id)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.id);
        components.push(component);
      }
    }
  }
  const order = new Map(ctx.graph.nodes.map((n, i) => [n.id, i]));
  for (const c of components) c.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  return components.sort((a, b) => (order.get(a[0]!) ?? 0) - (order.get(b[0]!) ?? 0));
}

/** A shortest cycle through the component's first node: `[a, b, c, a]`. */
function findCycle(component: string[], children: Map<string, string[]>): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    for (const child of children.get(id) ?? []) {
      if (!members.has(child)) continue;
      if (child === start) {
        const path = [start];
        for (let at: string | undefined = id; at !== undefined && at !== start; at = cameFrom.get(at)) path.splice(1, 0, at);
        path.push(start);
        return path;
      }
      if (!cameFrom.has(child)) {
        cameFrom.set(child, id);
        queue.push(child);
      }
    }
  }
  return [...component, start];
}
