/**
 * A plan's revisions: who made each and why, the diff between any two (`GET …/diff?from=&to=`, shown
 * as `plan diff` prints it), a revision's DOT, and a revert to an earlier one (`POST …/revert`), which
 * makes a new revision with that graph.
 */
import { useEffect, useState } from 'preact/hooks';
import { formatDiff } from '../../../src/revisions/format-diff.js';
import { api, errorText, seg } from '../api.js';
import { ErrorNote } from '../components/bits.js';
import { RevisionList, useRevisions } from '../components/revision-list.js';
import { useEvents } from '../live.js';
import { href, navigate } from '../router.js';
import { can } from '../session.js';
import type { ApplyReport, PlanChange, PlanEvent, Revision } from '../types.js';

export function RevisionsPage({ planId, from, to }: { planId: string; from: number | undefined; to: number | undefined }) {
  const [version, setVersion] = useState(0);
  const { revisions, error } = useRevisions(planId, version);
  const [message, setMessage] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [reverting, setReverting] = useState<number>();
  const path = `/v1/plans/${seg(planId)}`;
  useEvents(`${path}/events/stream`, (event: PlanEvent) => {
    if (event.kind === 'revision' && typeof event.detail?.revision === 'number') setVersion((v) => v + 1);
  });
  const latest = revisions ? Math.max(...revisions.map((r) => r.number)) : undefined;
  const shownTo = to ?? latest;

  const revert = async (revision: number) => {
    setFailure(undefined);
    try {
      const report = await api.post<ApplyReport>(`${path}/revert`, { revision });
      setReverting(undefined);
      setMessage(`Reverted to revision ${revision}: revision ${report.revision ?? '?'} (${report.changes.length} changes).`);
      setVersion((v) => v + 1);
    } catch (e) {
      setFailure(errorText(e));
    }
  };

  const actions = (r: Revision, isLatest: boolean) => (
    <div class="buttons small">
      {!isLatest && (
        <a class="button-link" href={href('plans', planId, 'revisions', { from: String(r.number), to: shownTo !== undefined ? String(shownTo) : undefined })}>
          Diff to {shownTo === latest ? 'latest' : `revision ${shownTo ?? ''}`}
        </a>
      )}
      {r.parent !== undefined && (
        <a class="button-link" href={href('plans', planId, 'revisions', { from: String(r.parent), to: String(r.number) })}>
          What it changed
        </a>
      )}
      {!isLatest &&
        can('operate') &&
        (reverting === r.number ? (
          <>
            <button type="button" class="danger" onClick={() => void revert(r.number)}>
              Yes, revert to {r.number}
            </button>
            <button type="button" class="secondary" onClick={() => setReverting(undefined)}>
              Keep
            </button>
          </>
        ) : (
          <button type="button" class="secondary" onClick={() => setReverting(r.number)}>
            Revert to this…
          </button>
        ))}
    </div>
  );

  return (
    <div class="revisions-page">
      <header class="page-head">
        <p class="crumbs">
          <a href={href('plans')}>Plans</a> › <a href={href('plans', planId)}>{planId}</a>
        </p>
        <h1>Revisions</h1>
        <div class="buttons">
          <a class="button-link" href={href('plans', planId, 'edit')}>
            Edit DOT
          </a>
        </div>
      </header>
      {message && (
        <p class="outcome applied" role="status">
          {message}
        </p>
      )}
      <ErrorNote error={failure} />
      <div class="editor-body">
        <div class="editor-main">
          <RevisionList revisions={revisions} error={error} actions={actions} />
        </div>
        <aside class="side-panel">
          {from !== undefined && shownTo !== undefined ? (
            <Diff planId={planId} from={from} to={shownTo} />
          ) : (
            <p class="muted">Choose a revision to see what changed.</p>
          )}
          {from !== undefined && (
            <button type="button" class="link" onClick={() => navigate(href('plans', planId, 'revisions'))}>
              Close the diff
            </button>
          )}
        </aside>
      </div>
    </div>
  );
}

function Diff({ planId, from, to }: { planId: string; from: number; to: number }) {
  const [changes, setChanges] = useState<PlanChange[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    setChanges(undefined);
    api
      .get<{ changes: PlanChange[] }>(`/v1/plans/${seg(planId)}/diff?from=${from}&to=${to}`)
      .then((d) => setChanges(d.changes))
      .catch((e: unknown) => setError(errorText(e)));
  }, [planId, from, to]);
  return (
    <section class="diff" aria-label={`changes from revision ${from} to ${to}`}>
      <h3>
        Revision {from} → {to}
      </h3>
      <ErrorNote error={error} />
      {changes && (
        <pre class="diff-lines">
          {formatDiff(changes, { width: 80 })
            .split('\n')
            .map((line, i) => (
              <div key={i} class={`diff-${line[0] === '+' ? 'add' : line[0] === '-' ? 'remove' : line[0] === '~' ? 'change' : 'none'}`}>
                {line}
              </div>
            ))}
        </pre>
      )}
    </section>
  );
}
