import type { Driver } from '../model/types.js';
import type { RevisionRecord } from '../store/types.js';
import type { PlanChange } from '../revisions/diff.js';
import type { ToolLog } from '../worker/tool-logs.js';

/** The options of `Dotplan`'s methods (checked by the schemas in arguments.ts), and what some of them return. */

/** A revision as `plan revisions` lists it. */
export interface RevisionEntry extends RevisionRecord {
  /** Who made it: the driver and, where known, the name. */
  driver?: Driver;
  /** Who made it, by name (a person, a worker), where known. */
  by?: string;
  /** How many changes it made (nodes, edges, attributes, moves); absent for the first revision. */
  changes?: number;
}

/** Who does a person's or operator's command, and why (recorded in the events). */
export interface CommandOptions {
  /** A name; default the OS user. */
  by?: string;
  /** Why; default a sentence naming the command and who. */
  reason?: string;
}

/** `create`'s options. */
export interface CreateOptions {
  /** Who creates it (recorded in its first events); default the OS user. */
  by?: string;
  /** Wait for a reviewer before anything runs, as `review="required"` in the plan does. */
  review?: boolean;
}

/** `rerun`'s options. */
export interface RerunOptions {
  /** Run again from this node on: the done nodes it does not lead to keep their results. Default: every node runs again. */
  from?: string;
  /** The new plan's title; default the old one's, suffixed ` (rerun)`. */
  title?: string;
  /** Who reruns it (recorded in its first events); default the OS user. */
  by?: string;
}

/** `apply`'s options. */
export interface ApplyOptions extends CommandOptions {
  /** Where the text came from (a file path), for the diagnostics; default `<edit>`. */
  source?: string;
  /** Say what would change and whether it would apply; change nothing. */
  dryRun?: boolean;
}

/** `revert`'s options. */
export interface RevertOptions extends CommandOptions {
  /** Say what would change and whether it would apply; change nothing. */
  dryRun?: boolean;
}

/** `worker`'s options (its concurrency, lease and poll are the config's `worker` settings). */
export interface WorkerStartOptions {
  /** Stop once nothing is ready, running or due for retry. */
  untilIdle?: boolean;
  /** Lease owner name; default host:pid:random. */
  owner?: string;
  /** An LLM endpoint for this worker instead of the configured one (the offline demo's scripted server). */
  llm?: {
    /** An OpenAI-compatible endpoint, e.g. `http://127.0.0.1:8080/v1`. */
    baseURL: string;
    /** Default: the config's `openai.model`. */
    model?: string;
  };
  /**
   * Where the tools' `ctx.log(message)` lines go, with the plan, node and attempt. Without it each
   * line is a `log` event of the node in the audit log (`events.list({ kind: 'log' })`, `plan events`).
   */
  log?: (entry: ToolLog) => void;
}

/** A stored plan (`planId`) or a DOT text (`dot`, named `source` in messages) — what `render` draws. */
export type RenderInput =
  | {
      /** A stored plan, drawn as it stands. */
      planId: string;
    }
  | {
      /** A DOT text. */
      dot: string;
      /** A name for the text in diagnostics (a file path). */
      source?: string;
    };

/** What `diff` returns: the structural changes from one revision to another. */
export interface RevisionDiff {
  /** The earlier revision's number. */
  from: number;
  /** The later revision's number (the latest when none was given). */
  to: number;
  /** Nodes, edges, clusters and attributes added, removed or changed. */
  changes: PlanChange[];
}
