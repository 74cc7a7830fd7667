import { validateDot } from '../../validate/index.js';
import { shapeText, VALIDATE_SHAPES, type ValidateShape } from './validate-shapes.js';

/**
 * `node validate-probe.js <shape> <nodes>`: validates a plan of the shape three times in this process
 * and prints `{"ms","peakMb","valid"}` — the best time, and the process's peak resident memory
 * (validate-shapes.ts runs one process per shape, so each peak is that shape's alone).
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
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  const result = validateDot(text, { tools });
  best = Math.min(best, performance.now() - started);
  if (!result.valid) {
    valid = false;
    error = result.diagnostics.find((d) => d.severity === 'error')?.message;
  }
}
console.log(JSON.stringify({ ms: best, peakMb: process.resourceUsage().maxRSS / 1024, valid, ...(error !== undefined ? { error } : {}) }));
