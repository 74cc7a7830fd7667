import { decodeText } from './text.js';
import { parseJsonObject } from './rows.js';
import type { Db } from './sql/executor.js';
import type { WaitingItem } from './types.js';

/**
 * What waits for a person and when it is due for a notice (issue 9): nodes waiting for an answer in
 * live plans and plans waiting for review, each with `remind_at` (NULL: never announced, so due at
 * once). A worker claims a due notice by moving `remind_at` forward with a conditional UPDATE on the
 * value it read: of several workers that see the same notice due, one wins, so each interval gets
 * one notice in all — a stored column, not a timer in each process.
 */
/** A question or review due a notice: what waits (`since`: the node's or plan's last update), and the plan's attributes (remindEvery, notify...). */
export interface DueNotice extends WaitingItem {
  planAttributes: Record<string, string>;
  /** The `remind_at` read (null: never announced); the claim succeeds only if it still holds. */
  remindAt: number | null;
}

export interface AttentionQueue {
  /** Notices due now (oldest first), at most `limit`. */
  due(limit: number): Promise<DueNotice[]>;
  /** Claims a notice: moves its next due time to `nextAt`; false when another worker claimed it first (or it stopped waiting). */
  claim(notice: DueNotice, nextAt: number): Promise<boolean>;
  /** The database clock, epoch ms. */
  now(): Promise<number>;
  /** The earliest next notice due, for the worker's wake-up timer. */
  nextDue(): Promise<Date | undefined>;
}

const QUESTIONS =
  `SELECT n.plan_id AS "planId", p.title, p.attributes AS "planAttributes", n.node_id AS "nodeId", n.attributes, n.remind_at AS "remindAt", n.updated_at AS "since" ` +
  `FROM nodes n JOIN plans p ON p.id = n.plan_id WHERE n.status = 'awaiting_input' AND p.status IN ('running', 'paused') AND (n.remind_at IS NULL OR n.remind_at <= NOW)`;
const REVIEWS =
  `SELECT p.id AS "planId", p.title, p.attributes AS "planAttributes", p.remind_at AS "remindAt", p.updated_at AS "since" ` +
  `FROM plans p WHERE p.status = 'awaiting_review' AND (p.remind_at IS NULL OR p.remind_at <= NOW)`;

export class SqlAttentionQueue implements AttentionQueue {
  constructor(private readonly db: Db) {}

  async due(limit: number): Promise<DueNotice[]> {
    type Row = { planId: string; title: string; planAttributes: string; nodeId?: string; attributes?: string; remindAt: number | null; since: number };
    const [questions, reviews] = [await this.db.all<Row>(`${QUESTIONS} LIMIT ${limit}`), await this.db.all<Row>(`${REVIEWS} LIMIT ${limit}`)];
    const notice = (kind: DueNotice['kind'], r: Row): DueNotice => ({
      kind,
      planId: r.planId,
      planTitle: decodeText(r.title),
      planAttributes: parseJsonObject(r.planAttributes),
      ...(r.nodeId !== undefined ? { nodeId: r.nodeId, attributes: parseJsonObject(r.attributes ?? '{}') } : {}),
      remindAt: r.remindAt === null ? null : Number(r.remindAt),
      since: new Date(Number(r.since)),
    });
    return [...questions.map((r) => notice('question', r)), ...reviews.map((r) => notice('review', r))]
      .sort((a, b) => a.since.getTime() - b.since.getTime())
      .slice(0, limit);
  }

  async claim(notice: DueNotice, nextAt: number): Promise<boolean> {
    const held = notice.remindAt === null ? 'remind_at IS NULL' : 'remind_at = ?';
    const heldParams = notice.remindAt === null ? [] : [notice.remindAt];
    const changed =
      notice.kind === 'question'
        ? await this.db.run(`UPDATE nodes SET remind_at = ? WHERE plan_id = ? AND node_id = ? AND status = 'awaiting_input' AND ${held}`, [
            nextAt,
            notice.planId,
            notice.nodeId,
            ...heldParams,
          ])
        : await this.db.run(`UPDATE plans SET remind_at = ? WHERE id = ? AND status = 'awaiting_review' AND ${held}`, [nextAt, notice.planId, ...heldParams]);
    return changed > 0;
  }

  async now(): Promise<number> {
    const [row] = await this.db.all<{ now: number }>(`SELECT NOW AS "now"`);
    return Number(row!.now);
  }

  async nextDue(): Promise<Date | undefined> {
    const [row] = await this.db.all<{ next: number | null }>(
      `SELECT MIN(t) AS "next" FROM (` +
        `SELECT n.remind_at AS t FROM nodes n JOIN plans p ON p.id = n.plan_id WHERE n.status = 'awaiting_input' AND p.status IN ('running', 'paused') AND n.remind_at IS NOT NULL ` +
        `UNION ALL SELECT remind_at AS t FROM plans WHERE status = 'awaiting_review' AND remind_at IS NOT NULL) x`,
    );
    return row?.next === null || row?.next === undefined ? undefined : new Date(Number(row.next));
  }
}
