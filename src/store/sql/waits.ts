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

/**
 * The node statuses as every query spells them: a node is active (its plan is not over) while
 * pending, ready, running or waiting for a person. A `running` node that holds no lease waits on
 * something outside its plan — an agent node on its child plan, whose last step finishes it, or an
 * external agent's node parked on its remote task (REMOTE_CHECK): it cannot expire.
 */
export const ACTIVE_NODE_STATUSES = `('pending', 'ready', 'running', '${NODE_WAITS}')`;
/** A running node a worker holds (`n`): its lease can run out. */
export const HELD_BY_WORKER = `n.status = 'running' AND n.lease_token IS NOT NULL`;
/** A running node waiting outside its plan (`n`): no lease; a child plan finishes it, or a worker checks its remote task. */
export const WAITS_OUTSIDE = `n.status = 'running' AND n.lease_token IS NULL`;
/**
 * A running node parked on its remote task (`n`): an external agent's node in detached mode holds no
 * lease while the task works; a worker checks the task at `lease_expires_at` (src/store/remote-tasks.ts).
 */
export const REMOTE_CHECK = `n.status = 'running' AND n.lease_token IS NULL AND n.remote_task IS NOT NULL`;
/** A node waiting for a person's answer (`n`). */
export const WAITS_FOR_PERSON = `n.status = '${NODE_WAITS}'`;

/**
 * The node's plan (`n`'s) is running: a scalar subquery rather than a join, so that a scan stays on its
 * index, in its order, whatever the number of stored plans and whatever their statistics say.
 */
export const IN_RUNNING_PLAN = `(SELECT p.status FROM plans p WHERE p.id = n.plan_id) = 'running'`;
/** A ready node (`n`) whose time has not come: a retry's backoff (`run_after` later than now). */
export const READY_LATER = `n.status = 'ready' AND n.run_after > NOW`;
