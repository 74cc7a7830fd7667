import { DotplanError } from '../../errors/errors.js';
import type { FinishOptions } from '../queue-types.js';
import { claimOf } from '../sql/claim.js';
import type { Queryable } from '../sql/executor.js';
import { claimsOf, type AlongWrite, type HandingAgent, type PlannedStep, type Written } from '../step-writer.js';
import type { ClaimedNode } from '../types.js';
import { IDS_AHEAD, slotAhead } from './read-ahead.js';
import type { TreeStore } from './tree-store.js';

/** Children a finish started in its transaction: the agent nodes' claims they replace (by token), their first nodes, their writes. */
export interface ChildrenStarted {
  delegated: Set<string>;
  claimed: ClaimedNode[];
  written: Written[];
}

/**
 * On PostgreSQL, the child of the one agent node a child's end hands over (StepWriter's
 * HandingAgent), started right behind the finish's write and carrying the transaction's COMMIT: one
 * round trip where the write and then the child's rows took two. Only where nothing is read first —
 * the finish read the parent plan's slot ahead (read-ahead.ts), the child fits its reserved ids, and
 * the child is made without reading (`children.prepare`); otherwise nothing is sent, and the child
 * is started after the write as before (work-queue.ts).
 */
export class ChildAlong {
  #started: { planId: string; nodeId: string; claimed: ClaimedNode[]; written: Written[] } | undefined;

  constructor(
    private readonly tree: TreeStore,
    private readonly q: Queryable,
    private readonly options: FinishOptions,
    private readonly lockedRoots: readonly string[],
    private readonly steps: readonly PlannedStep[],
  ) {}

  /** The write's `along`, where one may be sent. */
  get write(): AlongWrite | undefined {
    if (this.q.dialect !== 'postgres' || !this.options.children) return undefined;
    return (handing) => this.#start(handing);
  }

  /** The child started behind the write, as the write's answer names its node's claim; undefined when none was. */
  startedBy(written: Written): ChildrenStarted | undefined {
    const started = this.#started;
    if (!started) return undefined;
    const claim = claimsOf(written).find((c) => c.planId === started.planId && c.nodeId === started.nodeId);
    if (!claim) throw new DotplanError('INTERNAL', `the write did not hand over ${started.nodeId}, whose child was started behind it`);
    return { delegated: new Set([claim.token]), claimed: started.claimed, written: started.written };
  }

  async #start(handing: HandingAgent): Promise<void> {
    const { loaded, rowId, attempts } = handing;
    const root = loaded.plan.root ?? loaded.plan.id;
    const slot = slotAhead(this.steps, loaded.plan.id, root);
    if (!slot || !this.lockedRoots.includes(root)) return;
    const claim = handedClaim(handing);
    const prepared = await this.options.children!.prepare(claim).catch(() => undefined);
    if (!prepared || prepared.child.graph.nodes.length > IDS_AHEAD) return;
    const handOff = { owner: this.options.owner, leaseMs: this.options.leaseMs, limit: 1 };
    const child = await this.tree.startChildIn(this.q, claim, prepared.child, prepared.limits, {
      handOff,
      treeLocked: true,
      ahead: slot,
      last: true,
      handed: { rowId, owner: this.options.owner, attempts },
    });
    if (child.result.kind === 'started') this.#started = { planId: claim.planId, nodeId: claim.nodeId, claimed: child.result.claimed, written: child.written };
  }
}

/** The agent node's claim as the write being answered makes it, but for its lease (not known yet, and not needed to start the child). */
function handedClaim({ loaded, node, attempts }: HandingAgent): ClaimedNode {
  return claimOf({
    planId: loaded.plan.id,
    nodeId: node.id,
    type: node.type,
    attributes: node.attributes ?? {},
    attempts,
    token: '',
    leaseExpiresAt: new Date(0),
    params: loaded.params,
    planAttributes: loaded.plan.attributes,
    planAgent: loaded.agent,
    rootPlanId: loaded.plan.root,
    label: node.attributes?.label,
  });
}
