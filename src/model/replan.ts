/**
 * How an executor asks its leader to re-plan (seed 002 §3.2): its agent ends with the built-in
 * `request_replan` tool, its child plan fails with this marker and the reason, and the agent node in
 * the leader's plan fails with the same text — not retried. The leader's next prompt shows it, and it
 * counts against `maxReplans` like a failed verification.
 */
export const REPLAN_REQUESTED = 'REPLAN_REQUESTED';

export function replanRequest(reason: string): string {
  return `${REPLAN_REQUESTED}: ${reason}`;
}
