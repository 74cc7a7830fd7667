import { decodeText } from '../text.js';
import { parseJsonObject } from '../rows.js';
import type { WaitingItem } from '../types.js';
import type { Queryable } from './executor.js';
import { QUESTION_WAITS, REVIEW_WAITS } from './waits.js';

/**
 * What waits for a person across plans (`dotplan inbox`): nodes waiting for an answer in running or
 * paused plans, and plans waiting for review — each since its move into waiting (`waiting_since`,
 * the one "since" notices and timeouts count from too), oldest first. `planId`: in that plan only;
 * with `tree`, in that root plan's whole tree (the plans whose root it is, too), in one read each.
 */
export async function waitingItems(q: Queryable, planId?: string, options: { tree?: boolean } = {}): Promise<WaitingItem[]> {
  const onePlan = planId === undefined ? '' : options.tree ? ' AND (p.id = ? OR p.root_plan_id = ?)' : ' AND p.id = ?';
  const params = planId === undefined ? [] : options.tree ? [planId, planId] : [planId];
  const questions = await q.all<{ planId: string; title: string; nodeId: string; attributes: string; since: number }>(
    `SELECT n.plan_id AS "planId", p.title, n.node_id AS "nodeId", n.attributes, n.waiting_since AS "since" ` +
      `FROM nodes n JOIN plans p ON p.id = n.plan_id WHERE ${QUESTION_WAITS}${onePlan}`,
    params,
  );
  const reviews = await q.all<{ planId: string; title: string; since: number }>(
    `SELECT p.id AS "planId", p.title, p.waiting_since AS "since" FROM plans p WHERE ${REVIEW_WAITS}${onePlan}`,
    params,
  );
  const items: WaitingItem[] = [
    ...questions.map((r): WaitingItem => ({
      kind: 'question',
      planId: r.planId,
      planTitle: decodeText(r.title),
      nodeId: r.nodeId,
      attributes: parseJsonObject(r.attributes),
      since: new Date(Number(r.since)),
    })),
    ...reviews.map((r): WaitingItem => ({ kind: 'review', planId: r.planId, planTitle: decodeText(r.title), since: new Date(Number(r.since)) })),
  ];
  return items.sort((a, b) => a.since.getTime() - b.since.getTime());
}
