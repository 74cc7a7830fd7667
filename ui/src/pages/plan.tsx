/**
 * A plan's page: its title, status and commands; the server's drawing, recoloured live; the selected
 * node's panel beside it (`?node=`); the plan's events, child plans and LLM calls below.
 */
import { Drawing } from '../components/drawing.js';
import { ErrorNote, StatusBadge } from '../components/bits.js';
import { NodePanel } from '../components/node-panel.js';
import { PlanCommands } from '../components/plan-commands.js';
import { PlanTabs } from '../components/plan-tabs.js';
import { when } from '../format.js';
import { href, navigate } from '../router.js';
import { NODE_STATUSES } from '../../../src/model/types.js';
import { usePlanLive } from './plan-live.js';

export function PlanPage({ planId, selected }: { planId: string; selected: string | undefined }) {
  const live = usePlanLive(planId);
  const summary = live.summary.value;
  const plan = summary?.plan;
  const select = (nodeId: string) => navigate(href('plans', planId, { node: nodeId }));
  const statuses = [...live.statuses.value.entries()];
  return (
    <div class="plan-page">
      <header class="page-head">
        <p class="crumbs">
          <a href={href('plans')}>Plans</a>
          {plan?.parent && (
            <>
              {' › '}
              <a href={href('plans', plan.parent.planId)}>parent plan</a>
            </>
          )}
        </p>
        <h1>
          {plan?.title ?? planId} {plan && <StatusBadge status={plan.status} />}
        </h1>
        {plan && (
          <p class="muted">
            <code>{plan.id}</code> · revision {plan.revision} · {plan.mode} · created {when(plan.createdAt)}
            {plan.template ? ` · template ${plan.template}` : ''}
          </p>
        )}
        {plan?.error && <p class="error-text">{plan.error}</p>}
        {plan?.result && <p class="result">Result: {plan.result}</p>}
        {summary && summary.waiting.length > 0 && <p class="waiting">Waiting for: {summary.waiting.map((w) => w.text ?? w.for ?? '').join('; ')}</p>}
        {plan && <PlanCommands plan={plan} onDone={() => void live.refresh()} />}
        <ErrorNote error={live.error.value} />
      </header>
      <div class="plan-body">
        <div class="plan-main">
          <StatusCounts statuses={statuses.map(([, status]) => status)} />
          <Drawing planId={planId} statuses={live.statuses} selected={selected} onSelect={select} version={live.revision.value} />
          <PlanTabs planId={planId} events={live.events.value} summary={summary} />
        </div>
        <aside class="side-panel" aria-label="node details">
          {selected !== undefined ? (
            <NodePanel planId={planId} nodeId={selected} touched={live.nodeTouched.value.get(selected)} />
          ) : (
            <p class="muted">Select a node in the drawing or below to see its input, output and events.</p>
          )}
          <h3>Nodes</h3>
          <ul class="node-list">
            {statuses.map(([id, status]) => (
              <li key={id}>
                <a href={href('plans', planId, { node: id })} aria-current={id === selected ? 'true' : undefined} class={`status-${status}`}>
                  {id}
                </a>{' '}
                <StatusBadge status={status} />
              </li>
            ))}
          </ul>
        </aside>
      </div>
    </div>
  );
}

/** The nodes counted per status, live; it stands for the drawing's own legend, which shows the statuses when it was drawn. */
function StatusCounts({ statuses }: { statuses: string[] }) {
  const counts = NODE_STATUSES.map((s) => [s, statuses.filter((x) => x === s).length] as const).filter(([, n]) => n > 0);
  return (
    <p class="status-counts" aria-label="nodes per status">
      {counts.map(([status, n]) => (
        <span key={status}>
          <StatusBadge status={status} /> {n}
        </span>
      ))}
    </p>
  );
}
