/**
 * dotplan's web UI: plans, a plan's live drawing, the inbox, the DOT editor, revisions, new plans.
 * Served by `dotplan serve` from dist/ui; everything it shows comes from the `/v1` API.
 */
import { render, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { errorText } from './api.js';
import { ErrorNote } from './components/bits.js';
import { CreatePage } from './pages/create.js';
import { InboxPage } from './pages/inbox.js';
import { LoginPage } from './pages/login.js';
import { PlanPage } from './pages/plan.js';
import { PlansPage } from './pages/plans.js';
import { RevisionsPage } from './pages/revisions.js';
import { href, route, type Route } from './router.js';
import { loadSession, logout, session } from './session.js';
import { installStatusStyles } from './status-style.js';
import './style.css';

/** The editor (CodeMirror) is loaded when first opened: the other pages do not wait for it. */
function useEditorPage(): ComponentType<{ planId: string; modify: boolean }> | undefined {
  const [page, setPage] = useState<ComponentType<{ planId: string; modify: boolean }>>();
  useEffect(() => {
    void import('./pages/editor.js').then((m) => setPage(() => m.EditorPage));
  }, []);
  return page;
}

function Page({ at }: { at: Route }) {
  const [first = 'plans', id, sub] = at.parts;
  const number = (name: string) => {
    const n = Number(at.query.get(name) ?? '');
    return Number.isInteger(n) && n > 0 ? n : undefined;
  };
  if (first === 'plans' && id !== undefined && sub === 'edit') return <LazyEditor planId={id} modify={at.query.get('modify') === '1'} />;
  if (first === 'plans' && id !== undefined && sub === 'revisions') return <RevisionsPage planId={id} from={number('from')} to={number('to')} />;
  if (first === 'plans' && id !== undefined) return <PlanPage key={id} planId={id} selected={at.query.get('node') ?? undefined} />;
  if (first === 'plans') return <PlansPage status={at.query.get('status') ?? undefined} />;
  if (first === 'inbox') return <InboxPage />;
  if (first === 'new') return <CreatePage template={at.query.get('template') ?? undefined} />;
  return (
    <p>
      No such page. <a href={href('plans')}>See the plans</a>.
    </p>
  );
}

function LazyEditor(props: { planId: string; modify: boolean }) {
  const Editor = useEditorPage();
  return Editor ? <Editor key={props.planId} {...props} /> : <p class="muted">Loading the editor…</p>;
}

function App() {
  const [error, setError] = useState<string>();
  useEffect(() => {
    loadSession().catch((e: unknown) => setError(errorText(e)));
  }, []);
  const who = session.value;
  const at = route.value;
  const current = at.parts[0] ?? 'plans';
  return (
    <>
      <nav class="top-nav" aria-label="main">
        <a class="brand" href={href('plans')}>
          dotplan
        </a>
        {who && (
          <>
            <a href={href('plans')} aria-current={current === 'plans' ? 'page' : undefined}>
              Plans
            </a>
            <a href={href('inbox')} aria-current={current === 'inbox' ? 'page' : undefined}>
              Inbox
            </a>
            <a href={href('new')} aria-current={current === 'new' ? 'page' : undefined}>
              New plan
            </a>
            <span class="who">
              {who.name} ({who.scope})
              {!who.local && (
                <button type="button" class="link" onClick={() => void logout().catch((e: unknown) => setError(errorText(e)))}>
                  Log out
                </button>
              )}
            </span>
          </>
        )}
      </nav>
      <main>
        <ErrorNote error={error} />
        {who === undefined ? <p class="muted">Loading…</p> : who === null ? <LoginPage /> : <Page at={at} />}
      </main>
    </>
  );
}

installStatusStyles();
render(<App />, document.getElementById('app')!);
