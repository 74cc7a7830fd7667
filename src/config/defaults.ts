import type { AgentDefinition } from '../agents/types.js';
import { DOT_LIMITS } from '../dot/limits.js';
import { DEFAULT_MAX_REPLY_BYTES } from '../llm/reply.js';
import type { McpServerConfig } from '../mcp/servers.js';
import type { NotifierConfig } from '../notify/targets.js';

/**
 * Every setting dotplan reads, with its default. Resolved once, in layers (defaults < config file <
 * environment < flags, see resolve-config.ts) and passed down; nothing deeper reads `process.env`.
 */
export interface Config {
  /**
   * Where plans are stored. `postgres://…` → PostgreSQL; anything else is a SQLite URL.
   * Default: undefined → SQLite file `.dotplan/dotplan.db` under the working directory.
   * Env `DATABASE_URL`, flag `--db`.
   */
  databaseUrl?: string;
  /**
   * User tool modules (`.mjs`, `.js`, `.ts`, `.mts`), as absolute paths once resolved (relative paths
   * are taken from the config file's folder, or from the working directory for env and flags).
   * Default: []. Env `DOTPLAN_TOOLS` (comma-separated), flag `--tools`.
   */
  tools: string[];
  /** The agents agent nodes may name (config file only; see src/agents/types.ts). Default: none. */
  agents: AgentDefinition[];
  /**
   * MCP servers by name, whose tools nodes call as `toolCode="mcp:<server>/<tool>"` (config file and
   * `openDotplan({ config: { mcp } })`; see the README's "Tools from MCP servers"). Default: none.
   */
  mcp: Record<string, McpServerConfig>;
  /** The built-in `http` tool. */
  http: {
    /**
     * Hosts the `http` tool may call: `api.example.com`, `127.0.0.1:8080`, `*.example.com`, `*`.
     * Default: [] (no host). Env `DOTPLAN_HTTP_ALLOW` (comma-separated), flag `--http-allow`.
     */
    allowHosts: string[];
    /**
     * Whether the `http` tool may call private, loopback and link-local addresses (10.0.0.0/8,
     * 127.0.0.1, 169.254.169.254, fc00::/7, ::1, IPv4-mapped forms…), checked after resolving the host
     * name, on every redirect hop. Default: false. Env `DOTPLAN_HTTP_ALLOW_PRIVATE` (`true`/`false`).
     */
    allowPrivate: boolean;
  };
  /** Workers: how often they look for work, how many nodes they run, how long their leases last. */
  worker: {
    /** node-cron schedule of the safety-net poll (wake-ups do the rest). Default: every 30 s. Env `DOTPLAN_POLL`, flag `--poll`. */
    poll: string;
    /** Nodes one worker runs at once. Default: 4. Env `DOTPLAN_CONCURRENCY`, flag `--concurrency`. */
    concurrency: number;
    /**
     * How long a claim on a running node lasts without renewal, in ms; renewed every third of it, and
     * a crashed worker's nodes are taken over by another worker when it runs out. Default: 10000.
     * Env `DOTPLAN_LEASE_MS`, flag `--lease-ms`.
     */
    leaseMs: number;
    /**
     * Reflection plans one worker serves at once (an LLM call each). A hanging endpoint holds a slot for
     * up to `openai.timeoutMs` × (`openai.maxRetries` + 1) per call, so with one slot one such plan stalls
     * every other plan's LLM work on that worker. Default: 1. Env `DOTPLAN_LLM_SLOTS`, flag `--llm-slots`.
     */
    llmSlots: number;
  };
  /** Node retry policy when neither the node nor the plan's graph attributes set one. */
  retry: {
    /** Further attempts after a failure. Default: 0. Env `DOTPLAN_RETRIES`. */
    retries: number;
    /** First retry delay (doubles each time, with jitter). Default: '1s'. Env `DOTPLAN_RETRY_DELAY`. */
    retryDelay: string;
    /** Abort an attempt after this long. Default: undefined (no limit). Env `DOTPLAN_TIMEOUT`. */
    timeout?: string;
  };
  /** Notices of questions and reviews: reminders, notifiers, their retries. */
  notify: {
    /** How often a person is reminded of an unanswered question. Default: '1h'. Env `DOTPLAN_REMINDER_INTERVAL`. */
    reminderInterval: string;
    /** Shorthand for one generic webhook notifier named `webhook`. Default: undefined. Env `DOTPLAN_NOTIFY_WEBHOOK`. */
    webhookUrl?: string;
    /**
     * Where notices go besides the worker's console: webhook, DingTalk, Feishu/Lark and Slack notifiers
     * (see notify/targets.ts). In the file, `"notify": [...]` or `"notify": {"targets": [...]}`.
     * Default: [] (console only). Env `DOTPLAN_NOTIFY` (the list as JSON).
     */
    targets: NotifierConfig[];
    /** Further attempts when a notifier fails (error status, timeout, refused). Default: 3. Env `DOTPLAN_NOTIFY_RETRIES`. */
    retries: number;
    /** Wait before the first retry, doubling each time. Default: '1s'. Env `DOTPLAN_NOTIFY_RETRY_DELAY`. */
    retryDelay: string;
  };
  /** The OpenAI-compatible endpoint reflection plans and verify="llm" use. */
  openai: {
    /** An OpenAI-compatible endpoint. Default: undefined (the `openai` package's own). Env `OPENAI_BASE_URL`. */
    baseURL?: string;
    /** Model used for plan rewrites. Default: 'gpt-4o-mini'. Env `OPENAI_MODEL`. */
    model: string;
    /** Name of the environment variable holding the API key (kept out of config files). Default: 'OPENAI_API_KEY'. */
    apiKeyEnv: string;
    /** The key itself, read from the variable named by `apiKeyEnv`. Never set in a config file. */
    apiKey?: string;
    /** How long one attempt of an LLM call may take, in ms. Default: 60000. Env `OPENAI_TIMEOUT_MS`. */
    timeoutMs: number;
    /** Further attempts after a 429, a 5xx, a network error or a timeout (exponential backoff). Default: 3. Env `OPENAI_MAX_RETRIES`. */
    maxRetries: number;
  };
  /** Reflection plans' LLM work (SPEC §6); a plan's graph attributes of the same names override these. */
  reflection: {
    /** Replies refused in a row before the plan fails, its last good revision intact. Default: 3. Env `DOTPLAN_MAX_REWRITE_ATTEMPTS`. */
    maxRewriteAttempts: number;
    /** Failed verifications (each one a re-plan) before the plan ends with an explanation. Default: 3. Env `DOTPLAN_MAX_REPLANS`. */
    maxReplans: number;
    /** Tokens a plan's LLM calls may spend; when spent the plan stops (failed, the reason recorded). 0: no budget. Default: 0. Env `DOTPLAN_MAX_TOKENS`. */
    maxTokens: number;
    /** Characters of each node's output shown to the model. Default: 2000. Env `DOTPLAN_RESULT_CHARS`. */
    resultChars: number;
    /**
     * Wait after a failed exchange with the model (an endpoint error, a refused or unusable reply) before
     * the plan's next call, on any worker; doubles with each failure in a row, with jitter, capped at 10
     * minutes. Not a graph attribute: the model cannot shorten it. Default: '1s'. Env `DOTPLAN_LLM_RETRY_DELAY`.
     */
    retryDelay: string;
    /** Largest reply read, in UTF-8 bytes; a larger one is refused unread (REPLY_TOO_LARGE, one refused attempt). Default: 262144 (256 KiB). Env `DOTPLAN_MAX_REPLY_BYTES`. */
    maxReplyBytes: number;
  };
  /** How large a DOT input may be (plans, templates, `validate`, `render`); see dot/limits.ts. */
  limits: {
    /** In UTF-8 bytes. Default: 64 MiB. Env `DOTPLAN_MAX_DOT_BYTES`. */
    maxDotBytes: number;
    /** DOT syntax elements (nodes, edges, attributes...). Default: 5,000,000. Env `DOTPLAN_MAX_DOT_ELEMENTS`. */
    maxDotElements: number;
    /** The plan stack: how many plans deep below a root child plans may go (PLAN_DEPTH_EXCEEDED past it). Default: 4. Env `DOTPLAN_MAX_PLAN_DEPTH`. */
    maxPlanDepth: number;
    /** Child plans one root's tree may make in all (CHILD_PLANS_EXCEEDED past it). Default: 100. Env `DOTPLAN_MAX_CHILD_PLANS`. */
    maxChildPlans: number;
  };
  /** `dotplan serve`: the HTTP API (and, later, the web UI). */
  serve: {
    /** Address to listen on. A non-loopback one is refused while no API token exists. Default: '127.0.0.1'. Env `DOTPLAN_SERVE_HOST`, flag `--host`. */
    host: string;
    /** Port to listen on (0: any free one). Default: 8370. Env `DOTPLAN_SERVE_PORT`, flag `--port`. */
    port: number;
    /** The address people reach the server at (behind a proxy: the proxy's). Chat notices then link to the question's or review's page. Default: undefined. Env `DOTPLAN_PUBLIC_URL`. */
    publicUrl?: string;
    /** Origins whose pages may call the API with a token (CORS). Default: [] (CORS off). Env `DOTPLAN_CORS_ORIGINS` (comma-separated). */
    corsOrigins: string[];
    /** Requests one token (or the anonymous local user) may make per minute; past it, 429 with Retry-After. 0: no limit. Default: 600. Env `DOTPLAN_RATE_LIMIT`. */
    rateLimit: number;
  };
  /** The config file that was read, if any (absolute path). */
  configFile?: string;
}

export const DEFAULT_CONFIG_FILE = 'dotplan.config.json';

/** The SQLite database used when no URL is configured (relative to the working directory). */
export const DEFAULT_SQLITE_PATH = '.dotplan/dotplan.db';

export function defaultConfig(): Config {
  return {
    databaseUrl: undefined,
    tools: [],
    agents: [],
    mcp: {},
    http: { allowHosts: [], allowPrivate: false },
    worker: { poll: '*/30 * * * * *', concurrency: 4, leaseMs: 10_000, llmSlots: 1 },
    retry: { retries: 0, retryDelay: '1s', timeout: undefined },
    notify: { reminderInterval: '1h', webhookUrl: undefined, targets: [], retries: 3, retryDelay: '1s' },
    openai: { baseURL: undefined, model: 'gpt-4o-mini', apiKeyEnv: 'OPENAI_API_KEY', apiKey: undefined, timeoutMs: 60_000, maxRetries: 3 },
    reflection: { maxRewriteAttempts: 3, maxReplans: 3, maxTokens: 0, resultChars: 2000, retryDelay: '1s', maxReplyBytes: DEFAULT_MAX_REPLY_BYTES },
    serve: { host: '127.0.0.1', port: 8370, publicUrl: undefined, corsOrigins: [], rateLimit: 600 },
    limits: { maxDotBytes: DOT_LIMITS.maxBytes, maxDotElements: DOT_LIMITS.maxASTNodes, maxPlanDepth: 4, maxChildPlans: 100 },
  };
}
