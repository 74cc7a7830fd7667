import { decodeText } from '../text.js';
import { parseJsonObject } from '../rows.js';
import type { WaitingItem } from '../types.js';
import type { Queryable } from './executor.js';

/**
 * What waits for a person across plans (`dotplan inbox`): nodes waiting for an answer in running or
 * paused plans, and plans waiting for review — each since its last move into waiting, oldest first.
 */
export async function waitingItems(q: Queryable, planId?: string): Promise<WaitingItem[]> {
  const onePlan = planId !== undefined ? ' AND p.id = ?' : '';
  const params = planId !== undefined ? [planId] : [];
  const questions = await q.all<{ planId: string; title: string; nodeId: string; attributes: string; since: number | null }>(
    `SELECT n.plan_id AS "planId", p.title, n.node_id AS "nodeId", n.attributes, ` +
      `(SELECT MAX(e.at) FROM events e WHERE e.plan_id = n.plan_id AND e.node_id = n.node_id AND e.kind = 'status' AND e.to_status = 'awaiting_input') AS "since" ` +
      `FROM nodes n JOIN plans p ON p.id = n.plan_id WHERE n.status = 'awaiting_input' AND p.status IN ('running', 'paused')${onePlan}`,
    params,
  );
  const reviews = await q.all<{ planId: string; title: string; since: number | null }>(
    `SELECT p.id AS "planId", p.title, ` +
      `(SELECT MAX(e.at) FROM events e WHERE e.plan_id = p.id AND e.node_id IS NULL AND e.kind = 'status' AND e.to_status = 'awaiting_review') AS "since" ` +
      `FROM plans p WHERE p.status = 'awaiting_review'${onePlan}`,
    params,
  );
  const items: WaitingItem[] = [
    ...questions.map((r): WaitingItem => ({
      kind: 'question',
      planId: r.planId,
      planTitle: decodeText(r.title),
      nodeId: r.nodeId,
      attributes: parseJsonObject(r.attributes),
      since: new Date(Number(r.since ?? 0)),
    })),
    ...reviews.map((r): WaitingItem => ({ kind: 'review', planId: r.planId, planTitle: decodeText(r.title), since: new Date(Number(r.since ?? 0)) })),
  ];
  return items.sort((a, b) => a.since.getTime() - b.since.getTime());
}
