import { createRegistry, type ToolRegistry } from '../../tools/registry.js';
import { NOOP_TOOL } from './shapes.js';

/**
 * The benchmarks' one tool, `noop`: does nothing but note that it ran — which node, and when it
 * started (`performance.now()`) — so that a run can be checked (every node ran exactly once) and
 * a chain's step latency read from its start times.
 */
export class RunLog {
  readonly #runs = new Map<string, Map<string, number>>();
  readonly #starts = new Map<string, Array<{ node: string; at: number }>>();

  /** The built-in tools plus `noop`, on a real registry. */
  async registry(): Promise<ToolRegistry> {
    const registry = await createRegistry();
    registry.register(
      {
        code: NOOP_TOOL,
        description: 'does nothing (benchmarks); records that it ran',
        run: (_input, ctx) => {
          const at = performance.now();
          let runs = this.#runs.get(ctx.planId);
          if (!runs) this.#runs.set(ctx.planId, (runs = new Map<string, number>()));
          runs.set(ctx.nodeId, (runs.get(ctx.nodeId) ?? 0) + 1);
          let starts = this.#starts.get(ctx.planId);
          if (!starts) this.#starts.set(ctx.planId, (starts = []));
          starts.push({ node: ctx.nodeId, at });
          return null;
        },
      },
      'dotplan bench',
    );
    return registry;
  }

  /** How often each node of a plan ran its tool. */
  runs(planId: string): ReadonlyMap<string, number> {
    return this.#runs.get(planId) ?? new Map();
  }

  /** When the tool runs of these plans started, in the order they started. */
  startsOf(planIds: readonly string[]): number[] {
    return planIds.flatMap((id) => (this.#starts.get(id) ?? []).map((s) => s.at)).sort((a, b) => a - b);
  }

  /** When each tool run of a plan started (of the nodes `only` accepts), in the order they started. */
  starts(planId: string, only: (node: string) => boolean = () => true): number[] {
    return (this.#starts.get(planId) ?? []).filter((s) => only(s.node)).map((s) => s.at);
  }
}
