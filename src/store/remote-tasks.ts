import { CLAIM_ROW, withPlans, type ClaimRow } from './sql/claim.js';
import { forUpdate, type Db } from './sql/executor.js';
import { newLeaseToken, tokenRowId } from './sql/load.js';
import { IN_RUNNING_PLAN, REMOTE_CHECK } from './sql/waits.js';
import type { ClaimedNode } from './types.js';
import { decodeText, encodeText } from './text.js';

/**
 * Agent nodes whose work is a task of an external agent (A2A): the remote task each one stands for
 * (`nodes.remote_task`, JSON kept opaque here: src/agents/a2a/remote-state.ts reads it), written
 * under the node's lease, and the outbox of cancels owed to external agents (`remote_cancels`,
 * filled by a trigger in the transaction that cancels or skips a node whose task is open).
 */
export interface RemoteTasks {
  /** The node's remote task (JSON) and its latest answer, as stored. */
  read(planId: string, nodeId: string): Promise<{ remoteTask?: string; answer?: string }>;
  /**
   * Writes the node's remote task while `token` still holds its lease (the same row, still running,
   * the same lease): false when the lease was lost, and nothing is written. `clearAnswer`: the agent
   * asks a new question, so the answer stored is no longer one to send.
   */
  keep(token: string, remoteTask: string, options?: { clearAnswer?: boolean }): Promise<boolean>;
  /**
   * Parks the node on its remote task (detached mode): still `running`, its remote task kept, its lease
   * given up — no worker holds it — until a worker checks the task again in `checkInMs`. False when the
   * lease was lost (nothing written).
   */
  park(token: string, remoteTask: string, checkInMs: number): Promise<boolean>;
  /**
   * Takes up to `limit` parked nodes of running plans whose check is due, each with a new lease for
   * `owner` (no move, no new attempt): the worker checks their tasks. Only a worker that knows external
   * agents takes them.
   */
  takeChecks(owner: string, limit: number, leaseMs: number): Promise<ClaimedNode[]>;
  /** Up to `limit` cancels due, each held from other workers for `holdMs` (attempts counted). */
  takeCancels(limit: number, holdMs: number): Promise<RemoteCancel[]>;
  /** Delivered (or given up): the row goes. */
  settleCancel(id: number): Promise<void>;
  /** Not delivered: tried again in `delayMs`. */
  deferCancel(id: number, error: string, delayMs: number): Promise<void>;
}

/** A cancel owed to an external agent. */
export interface RemoteCancel {
  id: number;
  planId: string;
  nodeId: string;
  /** The node's remote task when it was ended (JSON). */
  remoteTask: string;
  /** Delivery attempts, this one included. */
  attempts: number;
}

/** A parked node (`n`) of a running plan whose check is due. */
const CHECK_DUE = `${REMOTE_CHECK} AND n.lease_expires_at <= NOW AND ${IN_RUNNING_PLAN}`;

export class SqlRemoteTasks implements RemoteTasks {
  constructor(private readonly db: Db) {}

  async read(planId: string, nodeId: string): Promise<{ remoteTask?: string; answer?: string }> {
    const [row] = await this.db.all<{ remoteTask: string | null; answer: string | null }>(
      `SELECT remote_task AS "remoteTask", answer FROM nodes WHERE plan_id = ? AND node_id = ?`,
      [planId, nodeId],
    );
    const out: { remoteTask?: string; answer?: string } = {};
    if (row?.remoteTask) out.remoteTask = row.remoteTask;
    const answer = decodeText(row?.answer);
    if (answer !== null) out.answer = answer;
    return out;
  }

  async keep(token: string, remoteTask: string, options: { clearAnswer?: boolean } = {}): Promise<boolean> {
    const rowId = tokenRowId(token);
    if (rowId === undefined) return false;
    const set = options.clearAnswer ? 'remote_task = ?, answer = NULL' : 'remote_task = ?';
    const changed = await this.db.run(`UPDATE nodes SET ${set} WHERE id = ? AND lease_token = ? AND status = 'running'`, [remoteTask, rowId, token]);
    return changed === 1;
  }

  async park(token: string, remoteTask: string, checkInMs: number): Promise<boolean> {
    const rowId = tokenRowId(token);
    if (rowId === undefined) return false;
    const changed = await this.db.run(
      `UPDATE nodes SET remote_task = ?, lease_owner = NULL, lease_token = NULL, lease_expires_at = NOW + ? WHERE id = ? AND lease_token = ? AND status = 'running'`,
      [remoteTask, checkInMs, rowId, token],
    );
    return changed === 1;
  }

  async takeChecks(owner: string, limit: number, leaseMs: number): Promise<ClaimedNode[]> {
    // Asked at every round of a worker that knows external agents: nothing due costs one read, no write transaction.
    if (limit <= 0 || !(await this.#any(`SELECT 1 FROM nodes n WHERE ${CHECK_DUE} LIMIT 1`))) return [];
    return this.db.tx(async (q) => {
      const due = await q.all<{ id: number }>(
        `SELECT n.id FROM nodes n WHERE ${CHECK_DUE} ORDER BY n.lease_expires_at, n.id LIMIT ?${forUpdate(q, 'OF n SKIP LOCKED')}`,
        [limit],
      );
      if (due.length === 0) return [];
      const ids = due.map((d) => Number(d.id));
      const tokens = new Map(ids.map((id) => [id, newLeaseToken(id)]));
      const rows: ClaimRow[] = [];
      for (const id of ids) {
        const [row] = await q.all<ClaimRow>(
          `UPDATE nodes SET lease_owner = ?, lease_token = ?, lease_expires_at = NOW + ? WHERE id = ? AND ${REMOTE_CHECK.replaceAll('n.', '')} ` +
            `RETURNING ${CLAIM_ROW}`,
          [owner, tokens.get(id), leaseMs, id],
        );
        if (row) rows.push(row);
      }
      return withPlans(q, rows);
    });
  }

  async takeCancels(limit: number, holdMs: number): Promise<RemoteCancel[]> {
    if (!(await this.#any(`SELECT 1 FROM remote_cancels WHERE next_at <= NOW LIMIT 1`))) return [];
    const rows = await this.db.tx((q) =>
      q.all<RemoteCancel>(
        `UPDATE remote_cancels SET next_at = NOW + ?, attempts = attempts + 1 WHERE id IN (SELECT id FROM remote_cancels WHERE next_at <= NOW ORDER BY id LIMIT ?${forUpdate(q, 'SKIP LOCKED')}) ` +
          `RETURNING id, plan_id AS "planId", node_id AS "nodeId", remote_task AS "remoteTask", attempts`,
        [holdMs, limit],
      ),
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), attempts: Number(r.attempts) })).sort((a, b) => a.id - b.id);
  }

  /** Whether the query finds a row (read outside any transaction). */
  async #any(sql: string): Promise<boolean> {
    return (await this.db.all(sql)).length > 0;
  }

  async settleCancel(id: number): Promise<void> {
    await this.db.run(`DELETE FROM remote_cancels WHERE id = ?`, [id]);
  }

  async deferCancel(id: number, error: string, delayMs: number): Promise<void> {
    await this.db.run(`UPDATE remote_cancels SET last_error = ?, next_at = NOW + ? WHERE id = ?`, [encodeText(error.slice(0, 2000)), delayMs, id]);
  }
}
