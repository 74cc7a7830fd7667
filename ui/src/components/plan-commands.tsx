/**
 * A plan's commands as its status allows them: pause, resume, cancel (asked twice), and for a plan
 * waiting for review approve / reject (with a reason) / modify (the DOT editor).
 */
import { useState } from 'preact/hooks';
import { api, errorText, seg } from '../api.js';
import { href } from '../router.js';
import { can } from '../session.js';
import type { Plan } from '../types.js';
import { ErrorNote } from './bits.js';

const ENDED = new Set(['completed', 'failed', 'cancelled', 'rejected']);

export function PlanCommands({ plan, onDone }: { plan: Plan; onDone?: () => void }) {
  const [error, setError] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const run = async (name: string, body: object = {}) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/v1/plans/${seg(plan.id)}/${name}`, body);
      setConfirming(false);
      onDone?.();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const operate = can('operate');
  return (
    <div class="plan-commands">
      <div class="buttons">
        {operate && plan.status === 'running' && (
          <button type="button" disabled={busy} onClick={() => void run('pause')}>
            Pause
          </button>
        )}
        {operate && plan.status === 'paused' && (
          <button type="button" disabled={busy} onClick={() => void run('resume')}>
            Resume
          </button>
        )}
        {operate &&
          !ENDED.has(plan.status) &&
          (confirming ? (
            <>
              <button type="button" class="danger" disabled={busy} onClick={() => void run('cancel')}>
                Yes, cancel the plan
              </button>
              <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                Keep it
              </button>
            </>
          ) : (
            <button type="button" class="secondary" onClick={() => setConfirming(true)}>
              Cancel…
            </button>
          ))}
        <a class="button-link" href={href('plans', plan.id, 'edit')}>
          Edit DOT
        </a>
        <a class="button-link" href={href('plans', plan.id, 'revisions')}>
          Revisions
        </a>
        <a class="button-link" href={`/v1/plans/${seg(plan.id)}/report?format=html`} target="_blank" rel="noopener">
          Report
        </a>
      </div>
      {plan.status === 'awaiting_review' && can('answer') && <ReviewForm planId={plan.id} onDone={onDone} />}
      <ErrorNote error={error} />
    </div>
  );
}

/** Approve, reject with a reason, or modify a plan that waits for review. */
export function ReviewForm({ planId, onDone }: { planId: string; onDone?: (() => void) | undefined }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async (name: 'approve' | 'reject', body: object) => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/v1/plans/${seg(planId)}/${name}`, body);
      onDone?.();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="review-form">
      <div class="buttons">
        <button type="button" disabled={busy} onClick={() => void run('approve', {})}>
          Approve
        </button>
        <a class="button-link" href={href('plans', planId, 'edit', { modify: '1' })}>
          Modify…
        </a>
      </div>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim() !== '') void run('reject', { reason });
        }}
      >
        <input aria-label={`reason to reject ${planId}`} placeholder="Reason to reject" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        <button type="submit" class="danger" disabled={busy || reason.trim() === ''}>
          Reject
        </button>
      </form>
      <ErrorNote error={error} />
    </div>
  );
}
