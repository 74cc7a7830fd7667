/**
 * One plan's live state for its page: the summary, every node's status, the latest events, and a
 * drawing version that moves with each new revision. The plan's event stream (its child plans'
 * too) is opened first; the reads start once it is subscribed, and events that arrive meanwhile are
 * applied again on top of what the reads return — so no move is missed or undone.
 */
import { signal, type Signal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { api, errorText, seg } from '../api.js';
import { debounce, useEvents } from '../live.js';
import type { NodeStatus, PlanEvent, PlanNode, PlanSummary } from '../types.js';

/** How many of the latest events the page keeps. */
const KEEP_EVENTS = 300;
const PAGE = 1000;

export interface PlanLive {
  summary: Signal<PlanSummary | undefined>;
  statuses: Signal<ReadonlyMap<string, NodeStatus>>;
  events: Signal<PlanEvent[]>;
  /** Bumped for each new revision: the drawing and the node list are read again. */
  revision: Signal<number>;
  /** The id of the last event about each node (the node panel reads again when it moves). */
  nodeTouched: Signal<ReadonlyMap<string, number>>;
  error: Signal<string | undefined>;
  refresh(): Promise<void>;
}

export function usePlanLive(planId: string): PlanLive {
  const live = useMemo(() => makeLive(planId), [planId]);
  useEvents(`/v1/plans/${seg(planId)}/events/stream?tree=true`, live.onEvent, live.onOpen);
  useEffect(() => live.stop, [live]);
  return live.state;
}

function makeLive(planId: string) {
  const state: PlanLive = {
    summary: signal(undefined),
    statuses: signal(new Map()),
    events: signal([]),
    revision: signal(0),
    nodeTouched: signal(new Map()),
    error: signal(undefined),
    refresh: () => readAll(),
  };
  const base = `/v1/plans/${seg(planId)}`;
  /** Events seen while reads of the nodes are in flight: applied again on top of their answers. */
  const pending = new Set<PlanEvent[]>();
  let stopped = false;

  const readSummary = debounce(() => {
    api
      .get<PlanSummary>(base)
      .then((s) => !stopped && (state.summary.value = s))
      .catch((e: unknown) => !stopped && (state.error.value = errorText(e)));
  }, 150);

  async function readNodes(): Promise<void> {
    const seen: PlanEvent[] = [];
    pending.add(seen);
    try {
      const nodes = await api.get<PlanNode[]>(`${base}/nodes`);
      const next = new Map(nodes.map((n) => [n.id, n.status]));
      for (const e of seen) if (isNodeMove(e, planId)) next.set(e.nodeId!, e.to as NodeStatus);
      if (!stopped) state.statuses.value = next;
    } finally {
      pending.delete(seen);
    }
  }

  async function readEvents(): Promise<void> {
    let after = 0;
    let all: PlanEvent[] = [];
    for (let pages = 0; pages < 20; pages += 1) {
      const page = await api.get<PlanEvent[]>(`${base}/events?after=${after}&limit=${PAGE}`);
      all = all.concat(page).slice(-KEEP_EVENTS);
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.id;
    }
    state.events.value = merge(all, state.events.value);
  }

  async function readAll(): Promise<void> {
    try {
      const [summary] = await Promise.all([api.get<PlanSummary>(base), readNodes(), readEvents()]);
      if (!stopped) state.summary.value = summary;
      state.error.value = undefined;
    } catch (e) {
      state.error.value = errorText(e);
    }
  }

  function onEvent(event: PlanEvent): void {
    if (stopped) return;
    for (const seen of pending) seen.push(event);
    if (event.planId === planId) {
      state.events.value = merge(state.events.value, [event]);
      if (event.nodeId !== undefined) state.nodeTouched.value = new Map(state.nodeTouched.value).set(event.nodeId, event.id);
      if (isNodeMove(event, planId)) state.statuses.value = new Map(state.statuses.value).set(event.nodeId!, event.to as NodeStatus);
      if (event.kind === 'revision' && typeof event.detail?.revision === 'number') {
        state.revision.value += 1;
        void readNodes().catch((e: unknown) => (state.error.value = errorText(e)));
      }
    }
    // The summary holds the plan's status, counts per status and the child plans.
    if (event.kind === 'status' || event.kind === 'child' || event.kind === 'revision') readSummary();
  }

  return {
    state,
    onEvent,
    onOpen: () => void readAll(),
    stop: () => {
      // Gone from the page (or logged out): no read of it may start afterwards.
      stopped = true;
      readSummary.cancel();
    },
  };
}

function isNodeMove(event: PlanEvent, planId: string): boolean {
  return event.kind === 'status' && event.planId === planId && event.nodeId !== undefined && event.to !== '';
}

/** Both lists, each event once, oldest first, the latest {@link KEEP_EVENTS}. */
function merge(a: PlanEvent[], b: PlanEvent[]): PlanEvent[] {
  const byId = new Map<number, PlanEvent>();
  for (const e of a) byId.set(e.id, e);
  for (const e of b) byId.set(e.id, e);
  return [...byId.values()].sort((x, y) => x.id - y.id).slice(-KEEP_EVENTS);
}
