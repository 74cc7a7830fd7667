/**
 * The DOT editor of a plan (`GET /v1/plans/{id}/dot`: the text keeps its `revision` and `asOfEvent`,
 * which say what the edit is made from). dotplan's diagnostics show as lint while typing; Apply posts
 * the text (`POST …/revisions`, or `…/modify` for a plan under review): 200 shows the new revision and
 * loads the plan as it now is, 422 puts the diagnostics on their lines, 409 lists the conflicts and
 * marks their nodes' lines.
 */
import type { EditorView } from '@codemirror/view';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, errorText, seg } from '../api.js';
import { ErrorNote } from '../components/bits.js';
import { ProblemList } from '../components/problem-list.js';
import { RevisionList, useRevisions } from '../components/revision-list.js';
import { lineOfNode } from '../editor/positions.js';
import { createEditor, replaceText, showProblems } from '../editor/setup.js';
import { useEvents } from '../live.js';
import { href } from '../router.js';
import { can } from '../session.js';
import type { ApplyReport, Conflict, Diagnostic, PlanEvent } from '../types.js';

interface Outcome {
  kind: 'applied' | 'invalid' | 'conflict' | 'error';
  text: string;
}

/** The revision a text says it was made from. */
const madeFrom = (text: string): number | undefined => {
  const m = /\brevision\s*=\s*"?(\d+)"?/.exec(text);
  return m ? Number(m[1]) : undefined;
};

export function EditorPage({ planId, modify }: { planId: string; modify: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const [base, setBase] = useState<number>();
  const [diagnostics, setDiagnostics] = useState<Diagnostic[]>([]);
  const [conflicts, setConflicts] = useState<Conflict[]>([]);
  const [outcome, setOutcome] = useState<Outcome>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const { revisions, error: revisionsError } = useRevisions(planId, version);
  const path = `/v1/plans/${seg(planId)}`;

  useEffect(() => {
    let stale = false;
    api
      .text(`${path}/dot`)
      .then((text) => {
        if (stale || !host.current) return;
        view.current?.destroy();
        setBase(madeFrom(text));
        view.current = createEditor(host.current, text, {
          validate: async (dot) => {
            try {
              const result = await api.post<{ diagnostics: Diagnostic[] }>('/v1/validate', { dot });
              setDiagnostics(result.diagnostics);
              return result.diagnostics;
            } catch (e) {
              setError(errorText(e));
              return [];
            }
          },
          onChange: () => setConflicts([]),
        });
      })
      .catch((e: unknown) => setError(errorText(e)));
    return () => {
      stale = true;
      view.current?.destroy();
      view.current = undefined;
    };
  }, [path]);

  useEvents(`${path}/events/stream`, (event: PlanEvent) => {
    if (event.kind === 'revision' && typeof event.detail?.revision === 'number') setVersion((v) => v + 1);
  });

  const apply = async () => {
    const editor = view.current;
    if (!editor) return;
    setBusy(true);
    setOutcome(undefined);
    setError(undefined);
    try {
      const report = await api.post<ApplyReport>(`${path}/${modify ? 'modify' : 'revisions'}`, { dot: editor.state.doc.toString() });
      setConflicts([]);
      const count = report.changes.length;
      setOutcome({ kind: 'applied', text: `Applied: revision ${report.revision ?? '?'} (${count} change${count === 1 ? '' : 's'}).` });
      const fresh = await api.text(`${path}/dot`);
      replaceText(editor, fresh);
      setBase(madeFrom(fresh));
      setVersion((v) => v + 1);
    } catch (e) {
      if (e instanceof ApiError && e.problem.code === 'MERGE_CONFLICT') {
        const found = e.problem.conflicts ?? [];
        setConflicts(found);
        showProblems(editor, e.problem.diagnostics ?? [], found);
        setOutcome({
          kind: 'conflict',
          text: `Not applied: ${found.length} conflict${found.length === 1 ? '' : 's'} with what changed since revision ${base ?? '?'}.`,
        });
      } else if (e instanceof ApiError && e.problem.diagnostics) {
        setDiagnostics(e.problem.diagnostics);
        showProblems(editor, e.problem.diagnostics);
        setOutcome({ kind: 'invalid', text: 'Not applied: the text does not validate.' });
      } else {
        setOutcome({ kind: 'error', text: errorText(e) });
      }
    } finally {
      setBusy(false);
    }
  };

  const jump = (line: number | undefined) => {
    const editor = view.current;
    if (!editor || line === undefined || line < 1 || line > editor.state.doc.lines) return;
    editor.dispatch({ selection: { anchor: editor.state.doc.line(line).from }, scrollIntoView: true });
    editor.focus();
  };
  const lineFor = (node: string | undefined) => (node !== undefined && view.current ? lineOfNode(view.current.state.doc, node) : undefined);
  const latest = revisions ? Math.max(...revisions.map((r) => r.number)) : undefined;

  return (
    <div class="editor-page">
      <header class="page-head">
        <p class="crumbs">
          <a href={href('plans')}>Plans</a> › <a href={href('plans', planId)}>{planId}</a>
        </p>
        <h1>{modify ? 'Modify the plan under review' : 'Edit the plan'}</h1>
        <p class="muted">
          Made from revision {base ?? '…'}
          {latest !== undefined && base !== undefined && latest > base ? ` — revision ${latest} exists now: applying merges this edit into it` : ''}.
        </p>
      </header>
      <ErrorNote error={error} />
      <div class="editor-body">
        <div class="editor-main">
          <div class="editor-host" ref={host} />
          <div class="buttons">
            <button type="button" disabled={busy || !can(modify ? 'answer' : 'operate')} onClick={() => void apply()}>
              {modify ? 'Apply the modification' : 'Apply'}
            </button>
            <a class="button-link" href={href('plans', planId, 'revisions')}>
              Revisions and diffs
            </a>
          </div>
          {outcome && (
            <p class={`outcome ${outcome.kind}`} role="status">
              {outcome.text}
            </p>
          )}
        </div>
        <aside class="side-panel">
          {conflicts.length > 0 && (
            <ProblemList
              title="Conflicts"
              id="conflicts"
              items={conflicts.map((c) => ({
                ...c,
                where: c.node ? `node ${c.node}${c.attribute ? ` · ${c.attribute}` : ''}` : c.edge,
                line: c.line ?? lineFor(c.node),
              }))}
              onJump={jump}
            />
          )}
          <ProblemList
            title="Diagnostics"
            id="diagnostics"
            items={diagnostics.map((d) => ({ ...d, where: d.node }))}
            onJump={jump}
            empty="No problems found."
          />
          <h3>History</h3>
          <RevisionList revisions={revisions} error={revisionsError} />
        </aside>
      </div>
    </div>
  );
}
