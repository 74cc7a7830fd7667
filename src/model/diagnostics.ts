import { DotplanError } from '../errors/errors.js';

/** An error makes a plan invalid; a warning does not. */
export type Severity = 'error' | 'warning';

/**
 * One finding of the validator. `code` is stable (documented in the README); `message` says what is
 * wrong with the bad value and what is allowed; `fix` says what to do.
 */
export interface Diagnostic {
  /** Stable: `TOOL_UNKNOWN`, `CYCLE`, `REFERENCE_INVALID`... (the README's Diagnostics table). */
  code: string;
  severity: Severity;
  /** What is wrong, naming the bad value and what is allowed. */
  message: string;
  /** The node it is about, if any. */
  node?: string;
  /** The edge it is about, if any. */
  edge?: { from: string; to: string };
  /** The attribute it is about, if any. */
  attribute?: string;
  /** Where in the text (1-based), when read from text. */
  line?: number;
  column?: number;
  /** What to do about it. */
  fix?: string;
}

/** Thrown when a plan (file, template, stored plan, LLM reply, hand edit) is not valid. */
export class ValidationError extends DotplanError {
  /** Every finding, errors first. */
  readonly diagnostics: Diagnostic[];
  /** The input's name (a file path, `template x`, `LLM reply`). */
  readonly source?: string;
  constructor(diagnostics: Diagnostic[], source?: string) {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    super('VALIDATION_FAILED', formatHeadline(errors, source));
    this.name = 'ValidationError';
    this.diagnostics = diagnostics;
    if (source !== undefined) this.source = source;
  }
}

function formatHeadline(errors: Diagnostic[], source?: string): string {
  const where = source ? `${source}: ` : '';
  if (errors.length === 0) return `${where}plan is not valid`;
  const first = formatDiagnostic(errors[0]!, source);
  return errors.length === 1 ? first : `${first} (and ${errors.length - 1} more error${errors.length > 2 ? 's' : ''})`;
}

/** `file:line: error CODE: message (node X) — fix: ...` */
export function formatDiagnostic(d: Diagnostic, source?: string): string {
  const place = [source, d.line !== undefined ? String(d.line) : undefined].filter(Boolean).join(':');
  const subject =
    d.node !== undefined
      ? ` [node ${JSON.stringify(d.node)}${d.attribute ? `, attribute ${d.attribute}` : ''}]`
      : d.edge
        ? ` [edge ${JSON.stringify(d.edge.from)} -> ${JSON.stringify(d.edge.to)}]`
        : '';
  const fix = d.fix ? ` Fix: ${d.fix}` : '';
  const sentence = `${d.message}${subject}`;
  return `${place ? `${place}: ` : ''}${d.severity} ${d.code}: ${sentence}${sentence.endsWith('.') ? '' : '.'}${fix}`;
}
