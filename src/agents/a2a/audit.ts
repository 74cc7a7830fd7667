import type { EventInput } from '../../engine/step.js';
import type { EventFeed } from '../../store/types.js';

/** How much of a sent or received text one audit event keeps. */
const AUDIT_CHARS = 4000;

/** One exchange with an external agent, as the audit log keeps it (after redaction). */
export interface Exchange {
  planId: string;
  nodeId: string;
  agent: string;
  /** sent: a message went out; received: the task moved or answered; cancel: a cancel was delivered (or given up). */
  direction: 'sent' | 'received' | 'refused' | 'cancel';
  /** The text as redacted. */
  text?: string;
  taskId?: string;
  contextId?: string;
  state?: string;
  skill?: string;
  /** The worker making the exchange. */
  actor?: string;
}

/**
 * The wrapper's audit trail (seed 002 §5.3): every exchange with an external agent is a `remote`
 * event of the node — what was sent after redaction, what came back redacted, the remote task's id and
 * state — shown by `plan events` (and `--kind remote`), `plan calls` and the report.
 */
export async function audit(events: Pick<EventFeed, 'append'>, e: Exchange): Promise<void> {
  const text =
    e.text === undefined
      ? undefined
      : e.text.length > AUDIT_CHARS
        ? `${e.text.slice(0, AUDIT_CHARS)}… (${e.text.length - AUDIT_CHARS} more characters)`
        : e.text;
  const detail: Record<string, unknown> = { agent: e.agent, direction: e.direction };
  for (const key of ['taskId', 'contextId', 'state', 'skill'] as const) if (e[key] !== undefined) detail[key] = e[key];
  if (text !== undefined) detail.text = text;
  const event: EventInput = {
    planId: e.planId,
    node: e.nodeId,
    kind: 'remote',
    driver: 'engine',
    reason: `${e.direction} ${e.direction === 'sent' ? 'to' : e.direction === 'received' ? 'from' : 'at'} agent ${e.agent}${e.state ? ` (${e.state})` : ''}`,
    detail,
  };
  if (e.actor !== undefined) event.actor = e.actor;
  await events.append([event]);
}
