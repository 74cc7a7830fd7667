/**
 * A remote task's states, as A2A names them: here, apart from the SDK's client (connect.ts), so that what
 * only reads a stored task's state does not load the SDK — it is loaded when an agent is first reached.
 */

/** A remote task's state, as A2A names it. */
export type RemoteState = 'submitted' | 'working' | 'input-required' | 'auth-required' | 'completed' | 'failed' | 'canceled' | 'rejected' | 'unknown';

/** States after which the task changes no more. */
export const TERMINAL_STATES: ReadonlySet<RemoteState> = new Set(['completed', 'failed', 'canceled', 'rejected']);
