/**
 * Typing or deleting over a selection of several lines, or inserting text of several lines, is left
 * to the browser by CodeMirror; Chrome, merging or splitting the lines' elements, then writes `style`
 * attributes, which the server's CSP refuses (a console error, though CodeMirror redraws the lines
 * right after). Such edits are made by CodeMirror itself instead: the browser's edit is cancelled
 * and the same change dispatched.
 */
import { EditorView } from '@codemirror/view';

/** What an input event puts in place of the selection; undefined for the kinds left to the browser (composition, paste…). */
function replacement(event: InputEvent): string | undefined {
  if (event.inputType === 'insertText') return event.data ?? '';
  if (event.inputType === 'insertParagraph' || event.inputType === 'insertLineBreak') return '\n';
  if (event.inputType.startsWith('delete')) return '';
  return undefined;
}

export const multiLineEdits = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const { main } = view.state.selection;
    const { doc } = view.state;
    const insert = replacement(event);
    if (insert === undefined) return false;
    const acrossLines = !main.empty && doc.lineAt(main.from).number !== doc.lineAt(main.to).number;
    if (!acrossLines && !insert.includes('\n')) return false;
    event.preventDefault();
    view.dispatch(view.state.replaceSelection(insert), { userEvent: insert === '' ? 'delete.selection' : 'input.type', scrollIntoView: true });
    return true;
  },
});
