import { resolveReferences } from '../execute/resolve-input.js';
import type { NodeKind } from './types.js';
import { fetchReferencedNodes } from './upstream.js';

/** A confirm node asks its question, with its references resolved, and waits for a person. */
export const confirmKind: NodeKind = {
  type: 'confirm',
  async run(claim, _abort, deps) {
    const question = claim.attributes.question;
    if (!question || !question.includes('{{')) return { kind: 'asked' };
    const upstream = await fetchReferencedNodes(claim, deps.plans, [question]);
    try {
      return { kind: 'asked', question: resolveReferences(question, { params: claim.params, nodes: (id) => upstream.get(id) }) };
    } catch {
      return { kind: 'asked' }; // an unresolved reference leaves the question as written
    }
  },
};
