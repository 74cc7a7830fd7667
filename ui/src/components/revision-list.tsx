/** A plan's revisions, newest first (`GET /v1/plans/{id}/revisions`), read again when `version` moves. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, seg } from '../api.js';
import { when } from '../format.js';
import type { Revision } from '../types.js';
import { ErrorNote } from './bits.js';

export function useRevisions(planId: string, version: unknown): { revisions: Revision[] | undefined; error: string | undefined } {
  const [revisions, setRevisions] = useState<Revision[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    api
      .get<Revision[]>(`/v1/plans/${seg(planId)}/revisions`)
      .then((list) => {
        setRevisions(list);
        setError(undefined);
      })
      .catch((e: unknown) => setError(errorText(e)));
  }, [planId, version]);
  return { revisions, error };
}

export function RevisionList({
  revisions,
  error,
  actions,
}: {
  revisions: Revision[] | undefined;
  error: string | undefined;
  actions?: (revision: Revision, latest: boolean) => ComponentChildren;
}) {
  if (error) return <ErrorNote error={error} />;
  if (!revisions) return <p class="muted">Loading…</p>;
  const latest = Math.max(...revisions.map((r) => r.number));
  return (
    <ol class="revision-list" reversed>
      {[...revisions].reverse().map((r) => (
        <li key={r.number} data-revision={r.number}>
          <span class="rev-number">revision {r.number}</span>
          {r.number === latest ? <span class="badge">latest</span> : null}{' '}
          <span class="muted">
            {r.author}
            {r.by ? ` (${r.by})` : ''} · {when(r.createdAt)}
            {r.changes !== undefined ? ` · ${r.changes} change${r.changes === 1 ? '' : 's'}` : ''}
          </span>
          {r.updateLog ? <div class="rev-log">{r.updateLog}</div> : null}
          {actions?.(r, r.number === latest)}
        </li>
      ))}
    </ol>
  );
}
