import type { GraphNode } from '../../model/types.js';
import { Dotplan } from '../../operations/dotplan.js';
import { withDefaults } from '../../operations/open.js';
import { listen, type RunningServer } from '../../http/server.js';
import type { BenchBackend, BenchResult } from '../results.js';
import { measureHttpFloor } from '../http-floor.js';
import type { DotplanBenchTarget, HttpBench, HttpBenchFixture } from '../run.js';
import { openScratchStore, type ScratchStore } from '../scratch-store.js';
import { loadUrl } from './http-load.js';
import { measureSseLatency } from './http-sse.js';
import { RunLog } from './run-log.js';
import { finishedPlan, NOOP_TOOL, planInputOf } from './shapes.js';

/**
 * The HTTP API of `dotplan serve` under load, on one backend: a real listening server (`listen` of
 * src/http/server.ts, the code `dotplan serve` runs) over a scratch database holding a plan of
 * `nodes` nodes and `plans` plans in all, loaded by a real client (http-load.ts) and followed by an
 * SSE client (http-sse.ts). Measured in every round: `GET /v1/plans/{id}` of the large plan and
 * `GET /v1/plans?limit=100`, each in requests/s over 4 connections and p50 on one, and the latency
 * from a commit to the SSE client (p50, p95, and the commit call's own p50). The data is stored once per backend and kept over the rounds (the
 * GETs change nothing; the SSE commits only pause and resume a plan of their own).
 */
export interface HttpSizes {
  /** Nodes of the plan `GET /v1/plans/{id}` reads. */
  nodes: number;
  /** Plans in the database (that plan and the SSE one included) behind `GET /v1/plans?limit=100`. */
  plans: number;
  /** Requests in each phase at least (warm-up, rate, latency). */
  requests: number;
  /** Milliseconds each phase lasts at least. */
  minMs: number;
  /** Commits timed to the SSE client. */
  commits: number;
}

export const DEFAULT_HTTP_SIZES: HttpSizes = { nodes: 10_000, plans: 10_000, requests: 20, minMs: 2_000, commits: 200 };

/** Chains the large plan is made of (their first nodes ready, the rest pending, as in a plan just started). */
const CHAINS = 10;
/** Plans stored at once while filling the database (PostgreSQL uses them; SQLite serialises anyway). */
const CREATE_PARALLEL = 16;
/** The page the list scenario asks for. */
export const LIST_LIMIT = 100;

/** What each round's measurement checked in the answers. */
export interface HttpChecks {
  /** Nodes the summary counted (per status, added up): must be `nodes`. */
  summaryNodes: number;
  /** Plans on the page the list answered: must be min(100, `plans`). */
  listed: number;
  /** Commits timed, and events the SSE client received. */
  sse: { commits: number; received: number };
}

export interface HttpFixture extends HttpBenchFixture {
  readonly url: string;
  /** The last round's checks. */
  readonly checks: HttpChecks | undefined;
}

/** The HTTP scenarios for `runBench`: each backend's fixture (set up once, measured every round) and the bare Hono floor. */
export function httpBench(sizes: HttpSizes = DEFAULT_HTTP_SIZES): HttpBench {
  return { open: (target) => openHttpBench(target, sizes), floor: () => measureHttpFloor(sizes) };
}

/** Stores the data on an empty database of `target` and starts listening; `measure()` runs one round. */
export async function openHttpBench(target: DotplanBenchTarget, sizes: HttpSizes = DEFAULT_HTTP_SIZES): Promise<HttpFixture> {
  const backend = target.backend;
  const scratch = await openScratchStore(target);
  let server: RunningServer | undefined;
  try {
    const store = scratch.store;
    const tools = await new RunLog().registry();
    const dotplan = new Dotplan(store, tools, withDefaults());

    let started = performance.now();
    const large = await store.plans.create(largePlan(sizes.nodes));
    const planMs = performance.now() - started;

    const sse = await store.plans.create(planInputOf('SSE: paused and resumed', [{ id: 'wait', attributes: { type: 'function', toolCode: NOOP_TOOL } }], []));
    started = performance.now();
    let next = 0;
    const fill = Math.max(0, sizes.plans - 2);
    await Promise.all(
      Array.from({ length: Math.min(CREATE_PARALLEL, fill) }, async () => {
        while (next < fill) await store.plans.create(finishedPlan(next++));
      }),
    );
    const plansMs = performance.now() - started;

    // A limit no run reaches: the limiter's bookkeeping is in every request, as on a real server.
    server = await listen(dotplan, { host: '127.0.0.1', port: 0 }, { rateLimit: Number.MAX_SAFE_INTEGER, logError: () => undefined });
    const running = server;
    const setup: BenchResult[] = [
      { backend, scenario: 'http-setup-plan', value: seconds(planMs), unit: 's' },
      { backend, scenario: 'http-setup-plans', value: seconds(plansMs), unit: 's' },
    ];
    let checks: HttpChecks | undefined;
    return {
      url: running.url,
      setup,
      get checks() {
        return checks;
      },
      async measure() {
        const planUrl = `${running.url}/v1/plans/${large.id}`;
        const listUrl = `${running.url}/v1/plans?limit=${LIST_LIMIT}`;
        const summaryNodes = await summaryCount(planUrl);
        if (summaryNodes !== sizes.nodes) throw new Error(`GET /v1/plans/{id} counted ${summaryNodes} nodes of ${sizes.nodes}`);
        const get = await loadUrl(planUrl, sizes);
        const listed = await pageSize(listUrl);
        if (listed !== Math.min(LIST_LIMIT, Math.max(sizes.plans, 2))) throw new Error(`GET /v1/plans listed ${listed} plans`);
        const list = await loadUrl(listUrl, sizes);
        const events = await measureSseLatency(dotplan, running.url, sse.id, sizes.commits);
        checks = { summaryNodes, listed, sse: { commits: events.commits, received: events.received } };
        return [
          ...rows(backend, 'plan-get', get),
          ...rows(backend, 'plan-list', list),
          { backend, scenario: 'http-sse-p50', value: events.p50, unit: 'ms' },
          { backend, scenario: 'http-sse-p95', value: events.p95, unit: 'ms' },
          { backend, scenario: 'http-sse-commit-p50', value: events.commitP50, unit: 'ms' },
        ];
      },
      close: () => dispose(server, scratch),
    };
  } catch (error) {
    await dispose(server, scratch).catch(() => undefined);
    throw error;
  }
}

function rows(backend: BenchBackend, what: 'plan-get' | 'plan-list', load: { rate: number; p50: number }): BenchResult[] {
  return [
    { backend, scenario: `http-${what}-rate`, value: load.rate, unit: 'req/s' },
    { backend, scenario: `http-${what}-p50`, value: load.p50, unit: 'ms' },
  ];
}

async function dispose(server: RunningServer | undefined, scratch: ScratchStore): Promise<void> {
  try {
    await server?.stop();
  } finally {
    await scratch.dispose();
  }
}

/** `nodes` no-op function nodes in CHAINS chains: the chains' first nodes ready, the others pending. */
export function largePlan(nodes: number) {
  const width = String(Math.max(0, nodes - 1)).length;
  const list: GraphNode[] = Array.from({ length: nodes }, (_, i) => ({
    id: `n${String(i).padStart(width, '0')}`,
    attributes: { type: 'function', toolCode: NOOP_TOOL },
  }));
  const chains = Math.min(CHAINS, nodes);
  const edges = list.slice(chains).map((node, i) => ({ from: list[i]!.id, to: node.id, attributes: {} }));
  return planInputOf(`HTTP: ${nodes} nodes in ${chains} chains`, list, edges);
}

async function summaryCount(url: string): Promise<number> {
  const body = (await getJson(url)) as { nodes: Record<string, number> };
  return Object.values(body.nodes).reduce((a, b) => a + b, 0);
}

async function pageSize(url: string): Promise<number> {
  return ((await getJson(url)) as { plans: unknown[] }).plans.length;
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res.json();
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}
