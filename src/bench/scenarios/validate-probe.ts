import { validateDot } from '../../validate/index.js';
import { shapeText, VALIDATE_SHAPES, type ValidateShape } from './validate-shapes.js';

/**
 * `node validate-probe.js <shape> <nodes>`: validates a plan of the shape three times in this process
 * and prints `{"ms","peakMb","valid"}` — the best time, and the process's peak resident memory up to
 * the end of the first validation: what `dotplan validate` of that plan costs (validate-shapes.ts runs
 * one process per shape, so each peak is that shape's alone; the later runs, there for the time, would
 * add the garbage of the earlier ones, which V8 collects when it likes).
 */
const [shape, count] = process.argv.slice(2);
if (!VALIDATE_SHAPES.includes(shape as ValidateShape) || !Number.isInteger(Number(count))) {
  console.error(`usage: validate-probe <${VALIDATE_SHAPES.join('|')}> <nodes>`);
  process.exit(2);
}
const text = shapeText(shape as ValidateShape, Number(count));
const tools = { has: () => true, list: () => [] };
let best = Infinity;
let valid = true;
let error: string | undefined;
let peakMb = 0;
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  const result = validateDot(text, { tools });
  best = Math.min(best, performance.now() - started);
  if (i === 0) peakMb = process.resourceUsage().maxRSS / 1024;
  if (!result.valid) {
    valid = false;
    error = result.diagnostics.find((d) => d.severity === 'error')?.message;
  }
}
console.log(JSON.stringify({ ms: best, peakMb, valid, ...(error !== undefined ? { error } : {}) }));
