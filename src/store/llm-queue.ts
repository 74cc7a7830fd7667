import { treeTokens } from './sql/tree.js';
import { LLM_MODES_SQL } from '../model/plan-modes.js';
import { randomUUID } from 'node:crypto';
import { decodeText, encodeText } from './text.js';
import { redactValue } from '../secrets/redact.js';
import { PLAN_WAITS } from '../model/waiting.js';
import { forUpdate, type Db, type Queryable } from './sql/executor.js';

/**
 * The LLM's work on reflection plans (SPEC §6): a plan whose nodes finished since its last rewrite
 * has requests due (`plans.llm_due`, counted by the step writer). A worker claims a plan's work
 * with a lease like a node's — at most one rewrite of a plan at a time; a worker that dies mid-call
 * loses the lease and another takes the work over — serves it, and takes off the requests it saw
 * when it claimed: finishes that arrived during the call stay due and are served together by the
 * next rewrite. Every call to the model is recorded against its plan.
 */
export interface LlmWork {
  planId: string;
  token: string;
  /** Requests due when claimed. */
  due: number;
  /** Failed exchanges in a row so far: replies refused, endpoint errors (kept across a takeover). */
  attempts: number;
  /** Tokens spent so far: the plan's, or for a plan of a tree the whole tree's (`reflection.maxTokens` is the tree's budget). */
  tokensUsed: number;
  /** `reflection` or `react`: which driver serves it (src/worker/llm-slot.ts). */
  mode: string;
  /** A child plan's tree root. */
  rootPlanId?: string;
}

/** Why the model was called: the first plan, a rewrite, a verify="llm" judgement, the final answer. */
export type LlmPurpose = 'plan' | 'rewrite' | 'verify' | 'answer' | 'turn';
/** How a call ended: a reply applied or refused (plans), `ok` (other purposes), or an endpoint error. */
export type LlmOutcome = 'applied' | 'refused' | 'ok' | 'error';

/** A call to the model as it is recorded. */
export interface LlmCallInput {
  planId: string;
  nodeId?: string;
  purpose: LlmPurpose;
  model: string;
  /** The messages sent, as JSON. */
  prompt: string;
  reply?: string;
  promptTokens: number;
  completionTokens: number;
  ms: number;
  outcome: LlmOutcome;
  /** A refused reply's diagnostics, or an error. */
  diagnostics?: unknown;
}

/** A recorded call to the model (`calls(planId)`), oldest first. */
export interface LlmCallRecord extends LlmCallInput {
  /** Grows in the order calls are recorded. */
  id: number;
  /** When it was recorded. */
  at: Date;
}

/** A plan's LLM work as `plan show` describes what the plan waits for. */
export interface LlmState {
  /** Requests due (0: no LLM work waits). */
  due: number;
  /** The worker serving them now, while its lease holds. */
  servedBy?: string;
  /** The plan's last call, when it did not succeed: its reply refused, or the endpoint failed. */
  lastProblem?: { at: Date; outcome: 'refused' | 'error'; message: string };
}

export interface LlmQueue {
  /** One plan's due work for `owner`, leased for `leaseMs`; undefined when none is free. */
  claim(owner: string, leaseMs: number, modes?: readonly string[]): Promise<LlmWork | undefined>;
  /** Extends the lease; false when it was lost (another worker took the work over). */
  renew(work: LlmWork, leaseMs: number): Promise<boolean>;
  /** Served: the requests it saw are off the count, the refusals reset, the lease released. */
  done(work: LlmWork): Promise<void>;
  /**
   * An exchange failed (a refused reply, an endpoint error, anything that went wrong serving it):
   * `attempts` failed in a row now, kept on the plan (it survives a takeover), the lease released, and
   * no worker claims the work again for `retryAfterMs`. False when the lease was lost.
   */
  failed(work: LlmWork, attempts: number, retryAfterMs: number): Promise<boolean>;
  /** Given back unserved, nothing counted (shutdown, or the plan was cancelled or paused): the lease released, the requests stay due. */
  release(work: LlmWork): Promise<void>;
  /** Requests due now (some may have arrived while the work was served). */
  due(planId: string): Promise<number>;
  /** The plan's LLM work now: requests due, who serves them, the last call's problem. */
  state(planId: string): Promise<LlmState>;
  /** Records a call and adds its tokens to the plan's spending. */
  record(call: LlmCallInput): Promise<void>;
  calls(planId: string): Promise<LlmCallRecord[]>;
  /** The plan's latest call for one of `purposes`, if any. */
  lastCall(planId: string, purposes: readonly LlmPurpose[]): Promise<LlmCallRecord | undefined>;
  /** Stores the final answer. */
  setResult(planId: string, result: string): Promise<void>;
}

/** A reflection plan's LLM work is served while it runs, and while it waits for review (the first plan, a reviewer's suggestion). */
export const LLM_SERVED = `mode IN ${LLM_MODES_SQL} AND status IN ('running', 'awaiting_review')`;
/** A plan's LLM work that no worker holds and that is not backing off after a failed exchange: claimable now, if due and served. */
export const LLM_UNHELD = `(llm_lease_expires_at IS NULL OR llm_lease_expires_at < NOW) AND (llm_not_before IS NULL OR llm_not_before <= NOW)`;
/** Work no worker holds, and not backing off after a failed exchange. */
const FREE = `${LLM_SERVED} AND llm_due > 0 AND ${LLM_UNHELD}`;
/** The most tokens one call is counted with, and a plan's total: PostgreSQL's INTEGER holds up to 2^31 - 1. */
const MAX_TOKENS_TOTAL = 2_147_483_647;

export class SqlLlmQueue implements LlmQueue {
  constructor(private readonly db: Db) {}

  async claim(owner: string, leaseMs: number, modes?: readonly string[]): Promise<LlmWork | undefined> {
    const only = modes === undefined ? '' : ` AND mode IN (${modes.map((m) => `'${m.replace(/'/g, "''")}'`).join(', ') || 'NULL'})`;
    const token = randomUUID();
    const claim = async (q: Queryable) => {
      const [row] = await q.all<{ id: string; due: number; attempts: number; tokens: number; mode: string; root: string | null }>(
        `UPDATE plans SET llm_lease_owner = ?, llm_lease_token = ?, llm_lease_expires_at = NOW + ? ` +
          `WHERE id = (SELECT id FROM plans WHERE ${FREE}${only} ORDER BY updated_at LIMIT 1${forUpdate(q, 'SKIP LOCKED')}) ` +
          `RETURNING id, llm_due AS "due", llm_attempts AS "attempts", tokens_used AS "tokens", mode, root_plan_id AS "root"`,
        [owner, token, leaseMs],
      );
      return row;
    };
    const row = this.db.dialect === 'postgres' ? await claim(this.db) : await this.db.tx(claim);
    if (!row) return undefined;
    const work: LlmWork = { planId: row.id, token, due: Number(row.due), attempts: Number(row.attempts), tokensUsed: Number(row.tokens), mode: row.mode };
    if (row.root !== null) {
      work.rootPlanId = row.root;
      work.tokensUsed = await treeTokens(this.db, row.root);
    }
    return work;
  }

  async renew(work: LlmWork, leaseMs: number): Promise<boolean> {
    // A plan cancelled, paused or ended meanwhile is not served any longer: the renewal fails and the call in flight is aborted.
    const sql = `UPDATE plans SET llm_lease_expires_at = NOW + ? WHERE id = ? AND llm_lease_token = ? AND ${LLM_SERVED}`;
    return (await this.db.run(sql, [leaseMs, work.planId, work.token])) > 0;
  }

  async done(work: LlmWork): Promise<void> {
    // A plan under review whose draft is now written starts waiting for its reviewer (src/store/sql/waits.ts): from now, announced afresh.
    const drafted = `status = '${PLAN_WAITS}' AND llm_due <= ?`;
    await this.db.run(
      `UPDATE plans SET llm_due = CASE WHEN llm_due > ? THEN llm_due - ? ELSE 0 END, llm_attempts = 0, llm_not_before = NULL, ` +
        `llm_lease_owner = NULL, llm_lease_token = NULL, llm_lease_expires_at = NULL, ` +
        `waiting_since = CASE WHEN ${drafted} THEN NOW ELSE waiting_since END, remind_at = CASE WHEN ${drafted} THEN NULL ELSE remind_at END, ` +
        `timeout_at = CASE WHEN ${drafted} THEN NULL ELSE timeout_at END WHERE id = ? AND llm_lease_token = ?`,
      [work.due, work.due, work.due, work.due, work.due, work.planId, work.token],
    );
  }

  async failed(work: LlmWork, attempts: number, retryAfterMs: number): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE plans SET llm_attempts = ?, llm_not_before = NOW + ?, ` +
        `llm_lease_owner = NULL, llm_lease_token = NULL, llm_lease_expires_at = NULL WHERE id = ? AND llm_lease_token = ?`,
      [attempts, Math.max(0, Math.round(retryAfterMs)), work.planId, work.token],
    );
    return changed > 0;
  }

  async release(work: LlmWork): Promise<void> {
    await this.db.run(`UPDATE plans SET llm_lease_owner = NULL, llm_lease_token = NULL, llm_lease_expires_at = NULL WHERE id = ? AND llm_lease_token = ?`, [
      work.planId,
      work.token,
    ]);
  }

  async due(planId: string): Promise<number> {
    const [row] = await this.db.all<{ due: number }>(`SELECT llm_due AS "due" FROM plans WHERE id = ?`, [planId]);
    return Number(row?.due ?? 0);
  }

  async state(planId: string): Promise<LlmState> {
    const [plan] = await this.db.all<{ due: number; owner: string | null }>(
      `SELECT llm_due AS "due", CASE WHEN llm_lease_expires_at >= NOW THEN llm_lease_owner END AS "owner" FROM plans WHERE id = ?`,
      [planId],
    );
    const [last] = await this.db.all<{ outcome: LlmOutcome; diagnostics: string | null; at: number }>(
      `SELECT outcome, diagnostics, at FROM llm_calls WHERE plan_id = ? ORDER BY id DESC LIMIT 1`,
      [planId],
    );
    const state: LlmState = { due: Number(plan?.due ?? 0) };
    if (plan?.owner) state.servedBy = plan.owner;
    if (last && (last.outcome === 'refused' || last.outcome === 'error')) {
      const problems = last.diagnostics === null ? [] : (JSON.parse(decodeText(last.diagnostics)) as Array<{ message?: string }>);
      const message =
        problems
          .map((p) => p.message)
          .filter(Boolean)
          .join('; ') || last.outcome;
      state.lastProblem = { at: new Date(Number(last.at)), outcome: last.outcome, message };
    }
    return state;
  }

  async record(input: LlmCallInput): Promise<void> {
    const call = redactValue(input); // secrets a remote side echoed (src/secrets/redact.ts)
    const promptTokens = storedTokens(call.promptTokens);
    const completionTokens = storedTokens(call.completionTokens);
    const spent = Math.min(MAX_TOKENS_TOTAL, promptTokens + completionTokens);
    await this.db.tx(async (q) => {
      await q.run(
        `INSERT INTO llm_calls (plan_id, node_id, purpose, model, prompt, reply, prompt_tokens, completion_tokens, ms, outcome, diagnostics, at) ` +
          `VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NOW)`,
        [
          call.planId,
          call.nodeId ?? null,
          call.purpose,
          call.model,
          encodeText(call.prompt),
          encodeText(call.reply),
          promptTokens,
          completionTokens,
          storedTokens(call.ms),
          call.outcome,
          call.diagnostics === undefined ? null : encodeText(JSON.stringify(call.diagnostics)),
        ],
      );
      // Capped, never overflowing: a plan over its budget is stopped by the budget, not by a failing write.
      await q.run(`UPDATE plans SET tokens_used = CASE WHEN tokens_used > ? THEN ? ELSE tokens_used + ? END WHERE id = ?`, [
        MAX_TOKENS_TOTAL - spent,
        MAX_TOKENS_TOTAL,
        spent,
        call.planId,
      ]);
    });
  }

  async calls(planId: string): Promise<LlmCallRecord[]> {
    return (await this.db.all<CallRow>(`${SELECT_CALLS} WHERE plan_id = ? ORDER BY id`, [planId])).map(callRecord);
  }

  async lastCall(planId: string, purposes: readonly LlmPurpose[]): Promise<LlmCallRecord | undefined> {
    if (purposes.length === 0) return undefined;
    const sql = `${SELECT_CALLS} WHERE plan_id = ? AND purpose IN (${purposes.map(() => '?').join(', ')}) ORDER BY id DESC LIMIT 1`;
    const [row] = await this.db.all<CallRow>(sql, [planId, ...purposes]);
    return row ? callRecord(row) : undefined;
  }

  async setResult(planId: string, result: string): Promise<void> {
    await this.db.run(`UPDATE plans SET result = ?, updated_at = NOW WHERE id = ?`, [encodeText(result), planId]);
  }
}

type CallRow = Record<'id' | 'planId' | 'nodeId' | 'purpose' | 'model' | 'prompt' | 'reply' | 'diagnostics' | 'outcome', string | null> &
  Record<'promptTokens' | 'completionTokens' | 'ms' | 'at', number>;
const SELECT_CALLS =
  `SELECT id, plan_id AS "planId", node_id AS "nodeId", purpose, model, prompt, reply, prompt_tokens AS "promptTokens", ` +
  `completion_tokens AS "completionTokens", ms, outcome, diagnostics, at FROM llm_calls`;

/** A whole number an INTEGER column holds: callers pass sanitised counts (llm/call-record.ts); this only guards the write. */
function storedTokens(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.min(MAX_TOKENS_TOTAL, Math.round(value)) : 0;
}

function callRecord(r: CallRow): LlmCallRecord {
  const call: LlmCallRecord = {
    id: Number(r.id),
    planId: r.planId!,
    purpose: r.purpose as LlmPurpose,
    model: r.model!,
    prompt: decodeText(r.prompt!),
    promptTokens: Number(r.promptTokens),
    completionTokens: Number(r.completionTokens),
    ms: Number(r.ms),
    outcome: r.outcome as LlmOutcome,
    at: new Date(Number(r.at)),
  };
  if (r.nodeId !== null) call.nodeId = r.nodeId;
  if (r.reply !== null) call.reply = decodeText(r.reply);
  if (r.diagnostics !== null) call.diagnostics = JSON.parse(decodeText(r.diagnostics)) as unknown;
  return call;
}
