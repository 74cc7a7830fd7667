import { NODE_WAITS, PLAN_WAITS } from '../../model/waiting.js';

/**
 * What waits for a person, as the SQL conditions every query of it shares (the inbox, notices,
 * reminders, timeouts): a node waiting for an answer in a running or paused plan (`n`, its plan
 * `p`), and a plan waiting for its reviewer (`p`) — not while the LLM still writes a reflection
 * plan's draft (its first plan, or one a reviewer's suggestion asked for): the reviewer is asked
 * once there is something to review. Each wait counts from its `waiting_since`.
 */
export const QUESTION_WAITS = `n.status = '${NODE_WAITS}' AND p.status IN ('running', 'paused')`;
export const REVIEW_WAITS = `p.status = '${PLAN_WAITS}' AND NOT (p.mode = 'reflection' AND p.llm_due > 0)`;
