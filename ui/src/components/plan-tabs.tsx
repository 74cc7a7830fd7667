/** Below the drawing: the plan's events (newest first), its child plans, and its LLM calls. */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, seg } from '../api.js';
import { eventLine, when } from '../format.js';
import { href } from '../router.js';
import type { LlmCall, PlanEvent, PlanSummary } from '../types.js';
import { ErrorNote, StatusBadge } from './bits.js';

type Tab = 'events' | 'children' | 'llm';

export function PlanTabs({ planId, events, summary }: { planId: string; events: PlanEvent[]; summary: PlanSummary | undefined }) {
  const [tab, setTab] = useState<Tab>('events');
  const children = summary?.children ?? [];
  const tabs: Array<[Tab, string]> = [
    ['events', `Events (${events.length})`],
    ['children', `Child plans (${children.length})`],
    ['llm', 'LLM calls'],
  ];
  return (
    <div class="tabs">
      <div role="tablist" aria-label="plan details">
        {tabs.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`tab-${id}`}
            aria-selected={tab === id}
            class={tab === id ? 'tab active' : 'tab'}
            onClick={() => setTab(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-labelledby={`tab-${tab}`} class="tab-panel">
        {tab === 'events' && <EventTable events={events} />}
        {tab === 'children' && (children.length === 0 ? <p class="muted">No child plans.</p> : <ChildList summary={summary!} />)}
        {tab === 'llm' && <LlmCalls planId={planId} />}
      </div>
    </div>
  );
}

function EventTable({ events }: { events: PlanEvent[] }) {
  if (events.length === 0) return <p class="muted">No events yet.</p>;
  return (
    <table class="grid events">
      <thead>
        <tr>
          <th>#</th>
          <th>when</th>
          <th>event</th>
          <th>by</th>
        </tr>
      </thead>
      <tbody>
        {[...events].reverse().map((e) => (
          <tr key={e.id}>
            <td>{e.id}</td>
            <td class="nowrap">{when(e.at)}</td>
            <td>{eventLine(e)}</td>
            <td>{e.actor ?? e.driver}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ChildList({ summary }: { summary: PlanSummary }) {
  return (
    <ul class="plain">
      {summary.children.map((c) => (
        <li key={c.id}>
          <a href={href('plans', c.id)}>{c.title}</a> <StatusBadge status={c.status} /> <span class="muted">from node {c.nodeId}</span>
          {c.instance ? <span class="muted"> · {c.instance}</span> : null}
        </li>
      ))}
    </ul>
  );
}

function LlmCalls({ planId }: { planId: string }) {
  const [calls, setCalls] = useState<LlmCall[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    api
      .get<LlmCall[]>(`/v1/plans/${seg(planId)}/llm-calls`)
      .then(setCalls)
      .catch((e: unknown) => setError(errorText(e)));
  }, [planId]);
  if (error) return <ErrorNote error={error} />;
  if (!calls) return <p class="muted">Loading…</p>;
  if (calls.length === 0) return <p class="muted">This plan made no LLM calls.</p>;
  return (
    <table class="grid">
      <thead>
        <tr>
          <th>when</th>
          <th>purpose</th>
          <th>node</th>
          <th>model</th>
          <th>tokens (prompt + reply)</th>
          <th>time</th>
          <th>outcome</th>
        </tr>
      </thead>
      <tbody>
        {calls.map((c) => (
          <tr key={c.id}>
            <td class="nowrap">{when(c.at)}</td>
            <td>{c.purpose}</td>
            <td>{c.nodeId ?? ''}</td>
            <td>{c.model}</td>
            <td>
              {c.promptTokens} + {c.completionTokens}
            </td>
            <td>{c.ms} ms</td>
            <td>{c.outcome}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
