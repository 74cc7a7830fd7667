/**
 * The DOT codec: `readDot` turns DOT text into a PlanGraph (throwing ValidationError with DOT_*
 * diagnostics), `writeDot` turns a PlanGraph back into pretty DOT. `readDot(writeDot(g))` equals
 * `g` apart from source locations, whatever the values hold (see `strings.ts` for the quoting
 * convention).
 */
export { readDot, type ReadDotOptions } from './read.js';
export { DOT_LIMITS, LIMIT_SETTINGS, NO_DOT_LIMITS } from './limits.js';
export { writeDot } from './write.js';
export { formatId, formatValue, quote, unquote } from './strings.js';
export { leadingComments, leadingCommentsEnd } from './comments.js';
