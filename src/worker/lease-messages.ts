import type { DatabaseTarget } from '../store/connect.js';

/**
 * What the lease thread and the worker's main thread tell each other. The main thread says which
 * leases it holds (a node claimed, a node finished); the thread renews them on its own timer, with
 * its own database connection, and says which it found lost.
 */
export interface LeaseThreadData {
  /** The database the worker's store uses; the thread opens its own connection to it. */
  target: DatabaseTarget;
  /** The worker's name as lease owner. */
  owner: string;
  /** How long a renewal extends a lease. */
  leaseMs: number;
  /** How often the held leases are renewed. */
  everyMs: number;
  /** The leases held, as the main thread keeps them in shared memory (HeldLeases). */
  held: SharedArrayBuffer;
  /**
   * SQLite: how often the thread checkpoints the write-ahead log (passively: writers go on meanwhile); once
   * it says it is ready, the worker's own connection no longer checkpoints at its commits. Unset: no checkpoints here.
   */
  checkpointMs?: number;
}

/** Main thread → lease thread: the leases taken and let go since the last message that are not in shared memory (one message per turn of the event loop, not one per node). */
export type ToLeaseThread = { hold: string[]; release: string[] } | { stop: true };

/** Lease thread → main thread. */
export type FromLeaseThread =
  /** The connection is open; renewals run. */
  | { ready: true }
  /** The connection could not be opened: the main thread renews by itself. */
  | { unavailable: string }
  /** These leases were not renewed: the nodes are no longer this worker's. */
  | { lost: string[] }
  /** A renewal failed (the first of a run of failures; the next success ends the run). */
  | { error: string; code?: string }
  /** Renewals succeed again after failing. */
  | { recovered: true }
  /** Stopped, connection closed. */
  | { stopped: true };
