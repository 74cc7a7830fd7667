import { validateDot } from '../../validate/index.js';
import type { BenchBackend, BenchResult } from '../results.js';

/**
 * Validation of a large plan, the same code `dotplan validate` and every plan creation run: a chain
 * of `nodes` nodes where every node's input refers to an upstream node's output (alternately its
 * parent and the first node), so that every reference is checked for being upstream. Time in ms,
 * the best of three (the figure is CPU work, not I/O).
 */
export function validatePlanText(nodes: number): string {
  const lines = ['digraph validate {'];
  for (let i = 0; i < nodes; i++) {
    const ref = i === 0 ? 'start' : `{{nodes.n${i % 2 === 0 ? 0 : i - 1}.output}}`;
    lines.push(`  n${i} [type=function status=pending toolCode=echo toolInput="${ref}"]`);
  }
  for (let i = 1; i < nodes; i++) lines.push(`  n${i - 1} -> n${i}`);
  lines.push('}');
  return lines.join('\n');
}

export function measureValidate(backend: BenchBackend, nodes: number): BenchResult {
  const text = validatePlanText(nodes);
  const tools = { has: () => true, list: () => [] };
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    const result = validateDot(text, { tools });
    best = Math.min(best, performance.now() - started);
    if (!result.valid) throw new Error(`the validate benchmark's plan is not valid: ${result.diagnostics[0]?.message ?? ''}`);
  }
  return { backend, scenario: 'validate', value: Math.round(best * 10) / 10, unit: 'ms' };
}
