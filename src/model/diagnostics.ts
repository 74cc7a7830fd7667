import { DotplanError } from '../errors/errors.js';

export type Severity = 'error' | 'warning';

/**
 * One finding of the validator. `code` is stable (documented in the README); `message` says what is
 * wrong with the bad value and what is allowed; `fix` says what to do.
 */
export interface Diagnostic {
  code: string;
  severity: Severity;
  message: string;
  node?: string;
  edge?: { from: string; to: string };
  attribute?: string;
  line?: number;
  column?: number;
  fix?: string;
}

/** Thrown when a plan (file, template, stored plan, LLM reply, hand edit) is not valid. */
export class ValidationError extends DotplanError {
  readonly diagnostics: Diagnostic[];
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
