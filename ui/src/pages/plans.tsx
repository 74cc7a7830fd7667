/**
 * Root plans, newest first, filtered by status (`?status=`); a plan with child plans expands to its
 * tree (`GET /v1/plans?root=<id>`). Live: a plan's status moves update its row, a new plan reloads.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorText, seg } from '../api.js';
import { ErrorNote, StatusBadge } from '../components/bits.js';
import { when } from '../format.js';
import { debounce, useEvents } from '../live.js';
import { href, navigate } from '../router.js';
import { PLAN_STATUSES } from '../../../src/model/types.js';
import type { Plan, PlanEvent } from '../types.js';

interface Page {
  plans: Plan[];
  next: string | null;
}

export function PlansPage({ status }: { status: string | undefined }) {
  const [plans, setPlans] = useState<Plan[]>();
  const [next, setNext] = useState<string | null>(null);
  const [open, setOpen] = useState<Record<string, Plan[] | undefined>>({});
  const [error, setError] = useState<string>();
  const query = `/v1/plans?root=true${status ? `&status=${seg(status)}` : ''}`;

  const readTree = async (id: string): Promise<Plan[]> => {
    const tree = await api.get<Page>(`/v1/plans?root=${seg(id)}&limit=500`);
    return tree.plans.filter((p) => p.id !== id).sort((a, b) => (a.depth ?? 0) - (b.depth ?? 0));
  };
  const read = async (cursor?: string) => {
    try {
      const page = await api.get<Page>(`${query}${cursor ? `&cursor=${seg(cursor)}` : ''}`);
      setPlans((before) => (cursor ? [...(before ?? []), ...page.plans] : page.plans));
      setNext(page.next);
      const trees = Object.keys(open).filter((id) => open[id] !== undefined);
      const read = await Promise.all(trees.map(async (id) => [id, await readTree(id)] as const));
      if (read.length > 0) setOpen((before) => ({ ...before, ...Object.fromEntries(read) }));
      setError(undefined);
    } catch (e) {
      setError(errorText(e));
    }
  };
  // Reads start once the stream is open (nothing is missed between them); again when the filter changes.
  const [subscribed, setSubscribed] = useState(false);
  useEffect(() => {
    if (subscribed) void read();
  }, [subscribed, query]);
  const [tick, setTick] = useState(0);
  const reread = useMemo(() => debounce(() => setTick((n) => n + 1), 300), []);
  useEffect(() => reread.cancel, [reread]);
  useEffect(() => {
    if (tick > 0) void read();
  }, [tick]);

  const onEvent = (event: PlanEvent) => {
    if (event.kind !== 'status' || event.nodeId !== undefined) return;
    // A plan's own move: its row changes; a plan not shown (a new one, a new child) reads the list again.
    const shown = plans?.some((p) => p.id === event.planId) || Object.values(open).some((tree) => tree?.some((p) => p.id === event.planId));
    if (!shown || status !== undefined) reread();
    const move = (p: Plan): Plan => (p.id === event.planId ? { ...p, status: event.to as Plan['status'] } : p);
    setPlans((list) => list?.map(move));
    setOpen((trees) => Object.fromEntries(Object.entries(trees).map(([k, v]) => [k, v?.map(move)])));
  };
  useEvents('/v1/events/stream', onEvent, () => setSubscribed(true));

  const toggle = async (id: string) => {
    if (open[id]) return setOpen({ ...open, [id]: undefined });
    try {
      const tree = await readTree(id);
      setOpen((before) => ({ ...before, [id]: tree }));
    } catch (e) {
      setError(errorText(e));
    }
  };

  return (
    <div>
      <header class="page-head row">
        <h1>Plans</h1>
        <label>
          Status{' '}
          <select value={status ?? ''} onChange={(e) => navigate(href('plans', { status: e.currentTarget.value }))}>
            <option value="">any</option>
            {PLAN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <a class="button-link" href={href('new')}>
          New plan
        </a>
      </header>
      <ErrorNote error={error} />
      {plans === undefined ? (
        <p class="muted">Loading…</p>
      ) : plans.length === 0 ? (
        <p class="muted">No plans{status ? ` with status ${status}` : ''}.</p>
      ) : (
        <table class="grid plans">
          <thead>
            <tr>
              <th>plan</th>
              <th>status</th>
              <th>revision</th>
              <th>created</th>
              <th>child plans</th>
            </tr>
          </thead>
          <tbody>
            {plans.map((p) => (
              <PlanRows key={p.id} plan={p} tree={open[p.id]} onToggle={() => void toggle(p.id)} />
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => void read(next)}>
          More
        </button>
      )}
    </div>
  );
}

function PlanRows({ plan, tree, onToggle }: { plan: Plan; tree: Plan[] | undefined; onToggle: () => void }) {
  return (
    <>
      <tr data-plan={plan.id}>
        <td>
          <a href={href('plans', plan.id)}>{plan.title}</a> <code class="muted">{plan.id}</code>
        </td>
        <td>
          <StatusBadge status={plan.status} />
        </td>
        <td>{plan.revision}</td>
        <td class="nowrap">{when(plan.createdAt)}</td>
        <td>
          <button type="button" class="link" aria-expanded={tree !== undefined} onClick={onToggle}>
            {tree ? 'hide' : 'show'}
          </button>
        </td>
      </tr>
      {tree?.map((child) => (
        <tr key={child.id} class="child-row" data-plan={child.id}>
          <td style={{ paddingLeft: `${1 + (child.depth ?? 1)}em` }}>
            ↳ <a href={href('plans', child.id)}>{child.title}</a> <code class="muted">{child.id}</code>
          </td>
          <td>
            <StatusBadge status={child.status} />
          </td>
          <td>{child.revision}</td>
          <td class="nowrap">{when(child.createdAt)}</td>
          <td class="muted">{child.parent ? `from ${child.parent.nodeId}` : ''}</td>
        </tr>
      ))}
      {tree && tree.length === 0 && (
        <tr class="child-row">
          <td colSpan={5} class="muted">
            No child plans.
          </td>
        </tr>
      )}
    </>
  );
}
