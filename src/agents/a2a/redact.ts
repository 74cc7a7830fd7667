import { redact as redactSecrets } from '../../secrets/redact.js';

/**
 * The wrapper's redaction (seed 002 §5.3): what goes to an external agent, and what comes back before
 * it reaches a node's output, a prompt or the audit log. Built in: e-mail addresses, phone numbers,
 * API keys and tokens (OpenAI/Anthropic-style `sk-…`, GitHub, Slack, AWS, JWTs, bearer tokens), and
 * every secret dotplan read through `env:NAME`; plus the agent's own `redact` patterns.
 */

const BUILT_IN: ReadonlyArray<{ pattern: RegExp; label: string; keep?: (match: string) => boolean }> = [
  { pattern: /\b[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}\b/g, label: '[redacted email]' },
  {
    pattern:
      /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAKIA[0-9A-Z]{16}\b|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    label: '[redacted key]',
  },
  { pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi, label: '$1 [redacted]' },
  {
    // A phone number: 9 to 15 digits, written with an optional +country code, spaces, dots, dashes or
    // parentheses between groups. Dates (2026-11-27) and times are kept.
    pattern: /(?<![\w+])\+?\(?\d{1,4}\)?(?:[\s.-]{0,2}\(?\d{2,5}\)?){2,5}(?![\w])/g,
    label: '[redacted phone]',
    keep: (match) => {
      const digits = match.replace(/\D/g, '').length;
      return digits < 9 || digits > 15 || /^\d{4}-\d{2}-\d{2}/.test(match) || (/^\d+$/.test(match) && !match.startsWith('+') && digits < 10);
    },
  },
];

/** Redacts text for one agent: the built-in patterns, the secrets in play, and `extra` (the agent's patterns). */
export class Redactor {
  readonly #extra: RegExp[];

  constructor(extra: readonly string[] = []) {
    this.#extra = extra.map((p) => new RegExp(p, 'g'));
  }

  redact(text: string): string {
    let out = redactSecrets(text);
    for (const { pattern, label, keep } of BUILT_IN) {
      out = out.replace(pattern, (match, ...groups: unknown[]) =>
        keep?.(match) ? match : label.replace('$1', typeof groups[0] === 'string' ? groups[0] : ''),
      );
    }
    for (const pattern of this.#extra) out = out.replace(pattern, '[redacted]');
    return out;
  }
}
