/**
 * Answering a question: one button per option where the node lists them, else a free-text field
 * (`POST /v1/plans/{id}/nodes/{node}/answer {text}`).
 */
import { useState } from 'preact/hooks';
import { api, errorText, seg } from '../api.js';
import { ErrorNote } from './bits.js';

interface Props {
  planId: string;
  nodeId: string;
  options?: string[] | undefined;
  onAnswered?: () => void;
}

export function AnswerForm({ planId, nodeId, options, onAnswered }: Props) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const answer = async (value: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/v1/plans/${seg(planId)}/nodes/${seg(nodeId)}/answer`, { text: value });
      setText('');
      onAnswered?.();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const label = `answer to ${nodeId}`;
  return (
    <div class="answer-form">
      {options && options.length > 0 ? (
        <div class="buttons" role="group" aria-label={label}>
          {options.map((option) => (
            <button type="button" key={option} disabled={busy} onClick={() => void answer(option)}>
              {option}
            </button>
          ))}
        </div>
      ) : (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (text.trim() !== '') void answer(text);
          }}
        >
          <input aria-label={label} value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder="Your answer" required />
          <button type="submit" disabled={busy || text.trim() === ''}>
            Answer
          </button>
        </form>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
