import { decodeText, encodeText } from '../text.js';
import type { Queryable } from './executor.js';

/**
 * An agent instance's conversation with the model (seed 002 §4): one row per message, in order, for
 * the child plan the instance runs. A call for an instance sends these messages only.
 */
export async function appendMessages(q: Queryable, planId: string, messages: readonly unknown[]): Promise<void> {
  if (messages.length === 0) return;
  const [row] = await q.all<{ last: number | null }>(`SELECT MAX(seq) AS "last" FROM agent_messages WHERE plan_id = ?`, [planId]);
  let seq = Number(row?.last ?? 0);
  for (const message of messages) {
    seq += 1;
    await q.run(`INSERT INTO agent_messages (plan_id, seq, message, created_at) VALUES (?, ?, ?, NOW)`, [planId, seq, encodeText(JSON.stringify(message))]);
  }
}

export async function listMessages(q: Queryable, planId: string): Promise<unknown[]> {
  const rows = await q.all<{ message: string }>(`SELECT message FROM agent_messages WHERE plan_id = ? ORDER BY seq`, [planId]);
  return rows.map((r) => JSON.parse(decodeText(r.message)) as unknown);
}
