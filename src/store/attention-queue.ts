import { NODE_WAITS, PLAN_WAITS } from '../model/waiting.js';
import { decodeText } from './text.js';
import { parseJsonObject } from './rows.js';
import type { Db } from './sql/executor.js';
import { QUESTION_WAITS, REVIEW_WAITS } from './sql/waits.js';
import type { WaitingItem } from './types.js';

/**
 * What waits for a person, from the worker's side (issue 9, issue 13): nodes waiting for an answer
 * in live plans and plans waiting for review, each counted from its `waiting_since` (written with
 * the move into waiting). Two times per wait, both stored columns rather than timers in a process:
 * - `timeout_at`, when answerTimeout / reviewTimeout ends the wait: worked out once by the first
 *   worker that sees the wait (NULL until then; NO_TIMEOUT when there is none), so that every worker
 *   — one that sends notices or not — finds the timeouts that have come in due order;
 * - `remind_at`, when the next notice is due (NULL: never announced, so due at once). A worker that
 *   sends notices claims one by moving it forward with a conditional UPDATE on the value it read: of
 *   several workers that see the same notice due, one wins, so each interval gets one notice in all.
 */
/** A question or review as the worker reads it: what waits and since when, the plan's attributes (remindEvery, notify...), its two times. */
export interface DueNotice extends WaitingItem {
  planAttributes: Record<string, string>;
  /** The `remind_at` read (null: never announced); the claim succeeds only if it still holds. */
  remindAt: number | null;
  /** When the wait times out (NO_TIMEOUT: never); null: not worked out yet. */
  timeoutAt: number | null;
}

/** `timeout_at` of a wait that never times out: the end of year 9999. */
export const NO_TIMEOUT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export interface AttentionQueue {
  /** Waits whose timeout is not worked out yet (they began since a worker last looked), oldest first, at most `limit`. */
  unscheduled(limit: number): Promise<DueNotice[]>;
  /** Records when the wait times out (undefined: never); changes nothing if it is no longer the same wait or another worker did it. */
  schedule(wait: DueNotice, timeoutAt: number | undefined): Promise<void>;
  /** Waits whose timeout has come, earliest first, at most `limit`. */
  timedOut(limit: number): Promise<DueNotice[]>;
  /** Waits due a notice (the first one or a reminder), earliest due first, at most `limit`. */
  due(limit: number): Promise<DueNotice[]>;
  /** Claims a notice: moves its next due time to `nextAt`; false when another worker claimed it first (or it stopped waiting). */
  claim(notice: DueNotice, nextAt: number): Promise<boolean>;
  /** The database clock, epoch ms. */
  now(): Promise<number>;
  /** When the next timeout (with `notices`, or notice) falls due — now for a wait not scheduled yet — for the worker's wake-up timer. */
  nextDue(notices: boolean): Promise<Date | undefined>;
}

/** Per kind of wait: its columns and rows (`FROM ... WHERE` it waits), and the row its times live in. */
const KINDS = {
  question: {
    columns:
      `n.plan_id AS "planId", p.title, p.attributes AS "planAttributes", n.node_id AS "nodeId", n.attributes, ` +
      `n.remind_at AS "remindAt", n.timeout_at AS "timeoutAt", n.waiting_since AS "since"`,
    rows: `nodes n JOIN plans p ON p.id = n.plan_id WHERE ${QUESTION_WAITS}`,
    alias: 'n',
    update: (set: string) => `UPDATE nodes SET ${set} WHERE plan_id = ? AND node_id = ? AND status = '${NODE_WAITS}' AND waiting_since = ?`,
    key: (w: DueNotice) => [w.planId, w.nodeId, w.since.getTime()],
  },
  review: {
    columns: `p.id AS "planId", p.title, p.attributes AS "planAttributes", p.remind_at AS "remindAt", p.timeout_at AS "timeoutAt", p.waiting_since AS "since"`,
    rows: `plans p WHERE ${REVIEW_WAITS}`,
    alias: 'p',
    update: (set: string) => `UPDATE plans SET ${set} WHERE id = ? AND status = '${PLAN_WAITS}' AND waiting_since = ?`,
    key: (w: DueNotice) => [w.planId, w.since.getTime()],
  },
} as const;

type Kind = keyof typeof KINDS;
type Row = {
  planId: string;
  title: string;
  planAttributes: string;
  nodeId?: string;
  attributes?: string;
  remindAt: unknown;
  timeoutAt: unknown;
  since: unknown;
};

export class SqlAttentionQueue implements AttentionQueue {
  constructor(private readonly db: Db) {}

  unscheduled(limit: number): Promise<DueNotice[]> {
    return this.#read(
      limit,
      (t) => `${t}.timeout_at IS NULL`,
      (t) => `${t}.waiting_since`,
    );
  }

  async schedule(wait: DueNotice, timeoutAt: number | undefined): Promise<void> {
    const kind = KINDS[wait.kind];
    await this.db.run(`${kind.update('timeout_at = ?')} AND timeout_at IS NULL`, [timeoutAt ?? NO_TIMEOUT, ...kind.key(wait)]);
  }

  timedOut(limit: number): Promise<DueNotice[]> {
    return this.#read(
      limit,
      (t) => `${t}.timeout_at <= NOW`,
      (t) => `${t}.timeout_at`,
    );
  }

  due(limit: number): Promise<DueNotice[]> {
    return this.#read(
      limit,
      (t) => `(${t}.remind_at IS NULL OR ${t}.remind_at <= NOW)`,
      (t) => `COALESCE(${t}.remind_at, ${t}.waiting_since)`,
    );
  }

  async claim(notice: DueNotice, nextAt: number): Promise<boolean> {
    const kind = KINDS[notice.kind];
    const held = notice.remindAt === null ? 'remind_at IS NULL' : 'remind_at = ?';
    const heldParams = notice.remindAt === null ? [] : [notice.remindAt];
    return (await this.db.run(`${kind.update('remind_at = ?')} AND ${held}`, [nextAt, ...kind.key(notice), ...heldParams])) > 0;
  }

  async now(): Promise<number> {
    const [row] = await this.db.all<{ now: number }>(`SELECT NOW AS "now"`);
    return Number(row!.now);
  }

  async nextDue(notices: boolean): Promise<Date | undefined> {
    const times: number[] = [];
    for (const { rows, alias: t } of Object.values(KINDS)) {
      const timeout = `MIN(CASE WHEN ${t}.timeout_at IS NULL THEN NOW WHEN ${t}.timeout_at < ${NO_TIMEOUT} THEN ${t}.timeout_at END) AS "timeout"`;
      const notice = notices ? `, MIN(COALESCE(${t}.remind_at, NOW)) AS "notice"` : '';
      const [row] = await this.db.all<{ timeout: unknown; notice?: unknown }>(`SELECT ${timeout}${notice} FROM ${rows}`);
      for (const time of [row?.timeout, row?.notice]) if (time !== null && time !== undefined) times.push(Number(time));
    }
    return times.length > 0 ? new Date(Math.min(...times)) : undefined;
  }

  /** Questions and reviews matching `where`, merged in `order`, at most `limit`. */
  async #read(limit: number, where: (alias: string) => string, order: (alias: string) => string): Promise<DueNotice[]> {
    const both: Array<{ k: number; wait: DueNotice }> = [];
    for (const kind of ['question', 'review'] as const) {
      const { columns, rows, alias } = KINDS[kind];
      const found = await this.db.all<Row & { k: unknown }>(
        `SELECT ${columns}, ${order(alias)} AS "k" FROM ${rows} AND ${where(alias)} ORDER BY "k" LIMIT ${limit}`,
      );
      both.push(...found.map((r) => ({ k: Number(r.k), wait: toWait(kind, r) })));
    }
    return both
      .sort((a, b) => a.k - b.k)
      .slice(0, limit)
      .map((x) => x.wait);
  }
}

function toWait(kind: Kind, r: Row): DueNotice {
  return {
    kind,
    planId: r.planId,
    planTitle: decodeText(r.title),
    planAttributes: parseJsonObject(r.planAttributes),
    ...(r.nodeId !== undefined ? { nodeId: r.nodeId, attributes: parseJsonObject(r.attributes ?? '{}') } : {}),
    remindAt: r.remindAt === null ? null : Number(r.remindAt),
    timeoutAt: r.timeoutAt === null ? null : Number(r.timeoutAt),
    since: new Date(Number(r.since)),
  };
}
