import type { Notice } from './notice.js';

/**
 * Where a person acts on a notice in the web UI of `dotplan serve` at `publicUrl` (`serve.publicUrl`):
 * a question's node selected on its plan's page (answer it there or in the inbox), a review's plan.
 */
export function uiLink(publicUrl: string, notice: Pick<Notice, 'kind' | 'planId' | 'nodeId'>): string {
  const base = publicUrl.replace(/\/+$/, '');
  const plan = `${base}/#/plans/${encodeURIComponent(notice.planId)}`;
  return notice.kind === 'question' && notice.nodeId !== undefined ? `${plan}?node=${encodeURIComponent(notice.nodeId)}` : plan;
}
