/**
 * What waits for a person (`GET /v1/inbox`), oldest first: a question with its options as buttons
 * (free text where it lists none), a review with approve / reject (reason) / modify. Read again
 * whenever something starts or stops waiting.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { AnswerForm } from '../components/answer-form.js';
import { ErrorNote } from '../components/bits.js';
import { ReviewForm } from '../components/plan-commands.js';
import { duration } from '../format.js';
import { debounce, useEvents } from '../live.js';
import { href } from '../router.js';
import { can } from '../session.js';
import type { InboxEntry, PlanEvent } from '../types.js';

export function InboxPage() {
  const [entries, setEntries] = useState<InboxEntry[]>();
  const [error, setError] = useState<string>();
  const read = async () => {
    try {
      setEntries(await api.get<InboxEntry[]>('/v1/inbox'));
      setError(undefined);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const [tick, setTick] = useState(0);
  const reread = useMemo(() => debounce(() => setTick((n) => n + 1), 200), []);
  useEffect(() => reread.cancel, [reread]);
  useEffect(() => {
    if (tick > 0) void read();
  }, [tick]);
  const onEvent = (event: PlanEvent) => {
    if (event.kind === 'status' || event.kind === 'answer' || event.kind === 'review') reread();
  };
  useEvents('/v1/events/stream', onEvent, () => void read());

  return (
    <div>
      <header class="page-head">
        <h1>Inbox</h1>
        <p class="muted">Questions and reviews waiting for a person, oldest first.</p>
      </header>
      <ErrorNote error={error} />
      {entries === undefined ? (
        <p class="muted">Loading…</p>
      ) : entries.length === 0 ? (
        <p class="muted">Nothing waits for an answer.</p>
      ) : (
        <ul class="inbox">
          {entries.map((entry) => (
            <li key={`${entry.planId}/${entry.nodeId ?? ''}`} class={`inbox-entry ${entry.kind}`} data-plan={entry.planId} data-node={entry.nodeId}>
              <Entry entry={entry} onDone={reread} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Entry({ entry, onDone }: { entry: InboxEntry; onDone: () => void }) {
  const where = entry.path ?? entry.planTitle;
  return (
    <article>
      <p class="entry-head">
        <span class={`kind ${entry.kind}`}>{entry.kind}</span> <a href={href('plans', entry.planId, entry.nodeId ? { node: entry.nodeId } : {})}>{where}</a>
        <span class="muted"> · waiting {duration(entry.waitedMs)}</span>
      </p>
      {entry.kind === 'question' ? (
        <>
          <p class="question">{entry.question ?? `Node ${entry.nodeId ?? ''} waits for an answer.`}</p>
          {can('answer') && entry.nodeId !== undefined && (
            <AnswerForm planId={entry.planId} nodeId={entry.nodeId} options={entry.options} onAnswered={onDone} />
          )}
        </>
      ) : (
        <>
          <p class="question">The plan waits for review before anything runs.</p>
          {can('answer') && <ReviewForm planId={entry.planId} onDone={onDone} />}
        </>
      )}
    </article>
  );
}
