import type { Db } from './sql/executor.js';

/**
 * `Idempotency-Key`s of create requests (the HTTP API): a key is claimed before the plan is made and
 * settled with its plan's id after, so a retried request — on this server, another one, or after a
 * restart — finds the plan the first one made instead of making a second. A claim that was never
 * settled (its server died mid-request) may be taken over once it is `staleMs` old.
 */
export type KeyClaim = { state: 'new' } | { state: 'done'; planId: string } | { state: 'mismatch' } | { state: 'busy' };

export interface RequestKeys {
  claim(owner: string, key: string, bodyHash: string, staleMs?: number): Promise<KeyClaim>;
  settle(owner: string, key: string, planId: string): Promise<void>;
  release(owner: string, key: string): Promise<void>;
}

const STALE_MS = 60_000;

export class SqlRequestKeys implements RequestKeys {
  constructor(private readonly db: Db) {}

  async claim(owner: string, key: string, bodyHash: string, staleMs = STALE_MS): Promise<KeyClaim> {
    const now = Date.now();
    return this.db.tx(async (q) => {
      const inserted = await q.run(
        `INSERT INTO request_keys (owner, request_key, body_sha256, plan_id, created_at) VALUES (?, ?, ?, NULL, ?) ON CONFLICT (owner, request_key) DO NOTHING`,
        [owner, key, bodyHash, now],
      );
      if (inserted === 1) return { state: 'new' };
      const [row] = await q.all<{ body: string; planId: string | null; createdAt: number | string }>(
        `SELECT body_sha256 AS "body", plan_id AS "planId", created_at AS "createdAt" FROM request_keys WHERE owner = ? AND request_key = ?`,
        [owner, key],
      );
      if (!row) return { state: 'busy' };
      if (row.body !== bodyHash) return { state: 'mismatch' };
      if (row.planId !== null) return { state: 'done', planId: row.planId };
      if (now - Number(row.createdAt) < staleMs) return { state: 'busy' };
      const taken = await q.run(`UPDATE request_keys SET created_at = ? WHERE owner = ? AND request_key = ? AND plan_id IS NULL AND created_at = ?`, [
        now,
        owner,
        key,
        row.createdAt,
      ]);
      return taken === 1 ? { state: 'new' } : { state: 'busy' };
    });
  }

  async settle(owner: string, key: string, planId: string): Promise<void> {
    await this.db.run(`UPDATE request_keys SET plan_id = ? WHERE owner = ? AND request_key = ?`, [planId, owner, key]);
  }

  async release(owner: string, key: string): Promise<void> {
    await this.db.run(`DELETE FROM request_keys WHERE owner = ? AND request_key = ? AND plan_id IS NULL`, [owner, key]);
  }
}
