import { readDot } from '../dot/read.js';
import { ValidationError, type Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';
import { createContext, type Check } from './context.js';
import { checkCycles } from './cycles.js';
import { checkEdges } from './edges.js';
import { checkGraphAttributes } from './graph-attributes.js';
import { normaliseGraph } from './normalise.js';
import { checkPolicy } from './policy.js';
import { checkReferences } from './references.js';
import { checkRequirements } from './requirements.js';
import { checkStructure } from './structure.js';
import { checkTools } from './tools.js';
import { checkAgents } from './agents.js';
import { checkGroups } from './groups.js';
import { withSerialEdges } from '../model/serial-groups.js';
import type { ValidateOptions, ValidationResult } from './types.js';

export type { ToolLookup, ValidateOptions, ValidationResult } from './types.js';
export { DIAGNOSTIC_CODES, type DiagnosticCode } from './codes.js';

/**
 * The validator every entry point uses (file, template, stored plan, LLM reply, hand edit). Each
 * finding is a Diagnostic with a stable code (listed with their meaning in `codes.ts`).
 */
const CHECKS: readonly Check[] = [
  checkStructure,
  checkCycles,
  checkGraphAttributes,
  checkRequirements,
  checkTools,
  checkAgents,
  checkGroups,
  checkPolicy,
  checkReferences,
  checkEdges,
];

export function validateGraph(graph: PlanGraph, options: ValidateOptions): ValidationResult {
  // Serial groups' implicit edges count as edges for every check (cycles, upstream references) and are stored with the plan.
  const full = withSerialEdges(graph);
  const ctx = createContext(full, options);
  const diagnostics = sortDiagnostics(CHECKS.flatMap((check) => check(ctx)));
  return { valid: !diagnostics.some((d) => d.severity === 'error'), diagnostics, graph: normaliseGraph(full) };
}

/** Reads and validates DOT text; a text that cannot be read gives its DOT_* diagnostic and no graph. */
export function validateDot(text: string, options: ValidateOptions): ValidationResult {
  let graph: PlanGraph;
  try {
    graph = readDot(text, options);
  } catch (error) {
    if (error instanceof ValidationError) return { valid: false, diagnostics: error.diagnostics };
    throw error;
  }
  return validateGraph(graph, options);
}

/** The normalised graph, or a ValidationError listing every diagnostic when any is an error. */
export function assertValidDot(text: string, options: ValidateOptions): PlanGraph {
  return unwrap(validateDot(text, options), options);
}

export function assertValidGraph(graph: PlanGraph, options: ValidateOptions): PlanGraph {
  return unwrap(validateGraph(graph, options), options);
}

function unwrap(result: ValidationResult, options: ValidateOptions): PlanGraph {
  if (!result.valid || !result.graph) throw new ValidationError(result.diagnostics, options.source);
  return result.graph;
}

/** Errors before warnings; within each, in source order (diagnostics without a line last). */
function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  const rank = (d: Diagnostic) => (d.severity === 'error' ? 0 : 1);
  return diagnostics
    .map((d, i) => ({ d, i }))
    .sort((a, b) => rank(a.d) - rank(b.d) || (a.d.line ?? Infinity) - (b.d.line ?? Infinity) || (a.d.column ?? 0) - (b.d.column ?? 0) || a.i - b.i)
    .map(({ d }) => d);
}
