/**
 * What the LLM-failure suites share: a dotplan on the suite's backend, reflection plans served by a
 * real in-process worker through the real `openai` client against the scripted server, and the
 * replies an adversarial endpoint gives (garbage, deep nesting, huge, bad `usage`, errors, hangs).
 */
import { openDotplan, type ConfigOverrides } from '../../src/operations/open.js';
import type { Dotplan } from '../../src/operations/dotplan.js';
import { writeReply } from '../../src/llm/reply.js';
import { startScriptedServer, type RecordedRequest, type Script, type ScriptedReply, type ScriptedServer } from '../../src/llm/scripted-server.js';
import { createTestStore, type TestStore } from '../support/db.js';

/** Backoff base in these suites: short, so that several failures fit in a test, and long enough to be told from a tight loop. */
export const RETRY_DELAY_MS = 80;
export const MAX_REWRITE_ATTEMPTS = 3;

export interface Rig {
  dotplan: Dotplan;
  store: TestStore;
  close(): Promise<void>;
}

/** A dotplan on a fresh database of the suite's backend; `config` over the suites' LLM settings. */
export async function openRig(config: ConfigOverrides = {}): Promise<Rig> {
  const store = await createTestStore();
  const dotplan = await openDotplan({
    config: {
      databaseUrl: store.url,
      worker: { poll: '0 0 * * * *', leaseMs: 3_000, ...config.worker },
      // The endpoint is each worker's own (Rig.run): this one is never called.
      openai: { baseURL: 'http://127.0.0.1:9/v1', model: 'scripted', timeoutMs: 5_000, maxRetries: 0, ...config.openai },
      reflection: { maxRewriteAttempts: MAX_REWRITE_ATTEMPTS, retryDelay: `${RETRY_DELAY_MS}ms`, ...config.reflection },
    },
  });
  return {
    dotplan,
    store,
    async close() {
      await dotplan.close();
      await store.cleanup();
    },
  };
}

/** A reflection plan for `goal`. */
export async function createGoal(dotplan: Dotplan, goal = 'find the answer'): Promise<string> {
  return (await dotplan.create({ goal })).id;
}

/** Runs an --until-idle worker against `server` until nothing is left for it. */
export async function runUntilIdle(dotplan: Dotplan, server: ScriptedServer): Promise<void> {
  const worker = dotplan.worker({ untilIdle: true, llm: { baseURL: server.url } });
  const errors: unknown[] = [];
  worker.on('worker:error', (error) => errors.push(error));
  worker.start();
  await worker.idle;
  await worker.stop();
  if (errors.length > 0) throw new Error(`the worker reported errors: ${errors.map(String).join('; ')}`);
}

export function serve(script: Script): Promise<ScriptedServer> {
  return startScriptedServer({ script });
}

/** The completions requests the server received (not the model list). */
export function completions(server: ScriptedServer): RecordedRequest[] {
  return server.requests.filter((r) => r.method === 'POST');
}

/** A plan the model may always write: one step, skipped, so nothing is left to run and the answer comes next. */
export const VALID_DOT = `digraph G {\n  a [type="function", toolCode="echo", toolInput="x", status="skipped"];\n}`;

/** Replies of each kind an adversarial endpoint gives. */
export const REPLIES = {
  valid: { content: writeReply({ updateLog: 'Nothing to do.', dot: VALID_DOT }) },
  /** Valid DOT the rules refuse: a pending step and nothing to run. */
  refused: { content: writeReply({ updateLog: 'Wait.', dot: `digraph G {\n  a [type="function", toolCode="echo", toolInput="x", status="pending"];\n}` }) },
  garbage: { content: 'I cannot help with that.\u0000 \uFFFD\uFFFD }}} @EP@ digraph {' },
  /** `subgraph {` nested 2,300 deep: about 30 KB. */
  deep: { content: `@epupdatelog@\ndeep\n@epupdatelog@\n@EP@\n*graph=digraph G {\n${'subgraph {\n'.repeat(2300)}a;\n${'}\n'.repeat(2300)}}\n@EP@` },
  /** 200 KB of prose without a plan. */
  huge: { content: 'lorem ipsum dolor sit amet '.repeat(7_600) },
  slow: { content: writeReply({ updateLog: 'Slowly.', dot: VALID_DOT }), delayMs: 300 },
  error: { status: 500, content: 'overloaded' },
  badUsage: { content: writeReply({ updateLog: 'Counted oddly.', dot: VALID_DOT }), rawUsage: { prompt_tokens: 1e308, completion_tokens: 'abc' } },
} satisfies Record<string, ScriptedReply>;

export type Behaviour = keyof typeof REPLIES;
export const BEHAVIOURS = Object.keys(REPLIES) as Behaviour[];
