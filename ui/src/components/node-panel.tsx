/**
 * The selected node: its type and status, input (tool input, calls or question), output, answer,
 * error, attempts and its events (`GET /v1/plans/{id}/nodes/{node}`), read again whenever an event
 * about it arrives; an answer form while it waits, retry and skip where the state machine allows.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, seg } from '../api.js';
import { eventLine, when } from '../format.js';
import { href } from '../router.js';
import { can } from '../session.js';
import type { PlanEvent, PlanNode } from '../types.js';
import { AnswerForm } from './answer-form.js';
import { ErrorNote, StatusBadge, TextBlock } from './bits.js';

type NodeDetail = PlanNode & { events: PlanEvent[] };

const FINISHED = new Set(['done', 'skipped', 'cancelled']);

export function NodePanel({ planId, nodeId, touched }: { planId: string; nodeId: string; touched: number | undefined }) {
  const [node, setNode] = useState<NodeDetail>();
  const [error, setError] = useState<string>();
  const path = `/v1/plans/${seg(planId)}/nodes/${seg(nodeId)}`;
  const read = () =>
    api
      .get<NodeDetail>(path)
      .then((n) => {
        setNode(n);
        setError(undefined);
      })
      .catch((e: unknown) => setError(errorText(e)));
  useEffect(() => {
    void read();
  }, [path, touched]);

  const command = async (name: 'retry' | 'skip') => {
    try {
      await api.post(`${path}/${name}`, {});
    } catch (e) {
      setError(errorText(e));
    }
  };

  if (!node || node.id !== nodeId) return <ErrorNote error={error} />;
  const a = node.attributes;
  const input = a.toolInput ?? a.toolCalls ?? a.task ?? a.params;
  const options = a.options
    ?.split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  return (
    <div class="node-panel" aria-live="polite">
      <h3>
        {node.label ?? node.id} <StatusBadge status={node.status} />
      </h3>
      <dl class="facts">
        <dt>node</dt>
        <dd>
          <code>{node.id}</code> · {node.type}
          {a.toolCode ? ` · ${a.toolCode}` : ''}
        </dd>
        <dt>attempts</dt>
        <dd>{node.attempts}</dd>
        {node.startedAt && (
          <>
            <dt>started</dt>
            <dd>{when(node.startedAt)}</dd>
          </>
        )}
        {node.finishedAt && (
          <>
            <dt>finished</dt>
            <dd>{when(node.finishedAt)}</dd>
          </>
        )}
        {node.childPlanId && (
          <>
            <dt>child plan</dt>
            <dd>
              <a href={href('plans', node.childPlanId)}>{node.childPlanId}</a>
            </dd>
          </>
        )}
      </dl>
      {a.question !== undefined && (
        <>
          <h4>Question</h4>
          <p>{a.question}</p>
        </>
      )}
      {node.status === 'awaiting_input' && can('answer') && <AnswerForm planId={planId} nodeId={node.id} options={options} onAnswered={() => void read()} />}
      <h4>Input</h4>
      <TextBlock text={input} />
      <h4>Output</h4>
      <TextBlock text={node.output} />
      {node.answer !== undefined && (
        <>
          <h4>Answer</h4>
          <TextBlock text={node.answer} />
        </>
      )}
      {node.error !== undefined && (
        <>
          <h4>Error</h4>
          <pre class="text-block error-text">{node.error}</pre>
        </>
      )}
      {can('operate') && (
        <div class="buttons">
          {node.status === 'failed' && (
            <button type="button" onClick={() => void command('retry')}>
              Retry
            </button>
          )}
          {!FINISHED.has(node.status) && node.status !== 'running' && (
            <button type="button" class="secondary" onClick={() => void command('skip')}>
              Skip
            </button>
          )}
        </div>
      )}
      <ErrorNote error={error} />
      <h4>Events</h4>
      <ol class="event-list" reversed>
        {[...node.events].reverse().map((e) => (
          <li key={e.id}>
            <time>{when(e.at)}</time> {eventLine(e)}
            {e.actor ? <span class="muted"> by {e.actor}</span> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
