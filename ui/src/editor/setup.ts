/**
 * The DOT editor: CodeMirror 6 with DOT highlighting (@viz-js/lang-dot), line numbers, undo history,
 * bracket matching and dotplan's own diagnostics as lint (`POST /v1/validate` a moment after typing
 * stops). Tab is left to move the focus, so the page stays keyboard reachable.
 *
 * The editor lives in a shadow root: CodeMirror then styles it with a constructed stylesheet
 * (adoptedStyleSheets) instead of a `<style>` element, which the server's CSP (`default-src 'self'`,
 * no inline styles) would refuse.
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { linter, lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import { EditorState, StateEffect, StateField, type Text } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { dot } from '@viz-js/lang-dot';
import type { Conflict, Diagnostic } from '../types.js';
import { multiLineEdits } from './native-edits.js';
import { lineOfNode, spanAt } from './positions.js';

/** How long after the last keystroke the text is validated. */
const LINT_DELAY_MS = 400;

export interface EditorHooks {
  /** dotplan's diagnostics of a text (the page also lists them). */
  validate(text: string): Promise<Diagnostic[]>;
  onChange?(text: string): void;
}

const theme = EditorView.theme({
  '&': { height: '60vh', fontSize: '0.9rem', backgroundColor: '#fff' },
  '.cm-scroller': { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace" },
  '.cm-gutters': { backgroundColor: '#f8fafc', borderRight: '1px solid #e2e8f0' },
  // @codemirror/lint draws its underlines and gutter markers as data: images, which the CSP
  // (img-src 'self') refuses: the same marks in plain CSS.
  '.cm-lintRange': {
    backgroundImage: 'none',
    textDecorationLine: 'underline',
    textDecorationStyle: 'wavy',
    textDecorationSkipInk: 'none',
    textUnderlineOffset: '2px',
  },
  '.cm-lintRange-error': { backgroundImage: 'none', textDecorationColor: '#dc2626' },
  '.cm-lintRange-warning': { backgroundImage: 'none', textDecorationColor: '#d97706' },
  '.cm-lintRange-info': { backgroundImage: 'none', textDecorationColor: '#64748b' },
  '.cm-lintRange-hint': { backgroundImage: 'none', textDecorationColor: '#6366f1' },
  '.cm-lint-marker': { content: 'normal', borderRadius: '50%', boxSizing: 'border-box', width: '0.9em', height: '0.9em', marginTop: '0.1em' },
  '.cm-lint-marker-error': { content: 'normal', backgroundColor: '#f87171', border: '2px solid #dc2626' },
  '.cm-lint-marker-warning': { content: 'normal', backgroundColor: '#fcd34d', border: '2px solid #d97706', borderRadius: '2px' },
  '.cm-lint-marker-info': { content: 'normal', backgroundColor: '#bfdbfe', border: '2px solid #3b82f6', borderRadius: '2px' },
});

/** An apply's conflicts, kept as lint until the text changes (the linter's own runs add them to dotplan's diagnostics). */
const setConflictMarks = StateEffect.define<CmDiagnostic[]>();
const conflictMarks = StateField.define<CmDiagnostic[]>({
  create: () => [],
  update(marks, tr) {
    for (const effect of tr.effects) if (effect.is(setConflictMarks)) return effect.value;
    return tr.docChanged ? [] : marks;
  },
});

export function createEditor(host: HTMLElement, doc: string, hooks: EditorHooks): EditorView {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  const parent = document.createElement('div');
  root.replaceChildren(parent);
  return new EditorView({
    root,
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        theme,
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        bracketMatching(),
        dot(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        multiLineEdits,
        lintGutter(),
        conflictMarks,
        linter(
          async (view) => {
            const diagnostics = toCodeMirror(view.state.doc, await hooks.validate(view.state.doc.toString()));
            return [...diagnostics, ...view.state.field(conflictMarks)];
          },
          { delay: LINT_DELAY_MS },
        ),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) hooks.onChange?.(update.state.doc.toString());
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'DOT text of the plan' }),
      ],
    }),
  });
}

/** An apply's diagnostics and conflicts as lint, at once; the conflicts stay until the text changes. */
export function showProblems(view: EditorView, diagnostics: readonly Diagnostic[], conflicts: readonly Conflict[] = []): void {
  const doc = view.state.doc;
  const marks = conflicts.flatMap((c) => conflictMark(doc, c));
  view.dispatch({ effects: setConflictMarks.of(marks) });
  view.dispatch(setDiagnostics(view.state, [...toCodeMirror(doc, diagnostics), ...marks]));
}

/** Replaces the whole text (after an apply: the plan as it now is). */
export function replaceText(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

function toCodeMirror(doc: Text, diagnostics: readonly Diagnostic[]): CmDiagnostic[] {
  return diagnostics.flatMap((d) => {
    const line = d.line ?? (d.node !== undefined ? lineOfNode(doc, d.node) : undefined);
    const span = line !== undefined ? spanAt(doc, line, d.line !== undefined ? d.column : undefined) : undefined;
    if (!span) return [];
    return [{ ...span, severity: d.severity, source: d.code, message: d.fix ? `${d.message} — fix: ${d.fix}` : d.message }];
  });
}

function conflictMark(doc: Text, c: Conflict): CmDiagnostic[] {
  const line = c.line ?? (c.node !== undefined ? lineOfNode(doc, c.node) : undefined);
  const span = line !== undefined ? spanAt(doc, line) : undefined;
  if (!span) return [];
  return [{ ...span, severity: 'error', source: c.code, message: c.fix ? `${c.message} — fix: ${c.fix}` : c.message }];
}
