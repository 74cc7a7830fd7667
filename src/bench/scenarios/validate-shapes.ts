import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { seededRandom } from '../../model/seeded-random.js';
import type { BenchBackend, BenchResult } from '../results.js';

/**
 * Validation on several shapes of plan, each with every reference checked for being upstream — the
 * validator was fast on one shape (the README's: one reference per node) and quadratic on others:
 * - `chain5`: a chain whose every node refers to its five nearest ancestors;
 * - `fan-in`: one join of all the other nodes, its input referring to every parent;
 * - `ladder`: a chain of steps, each joining the step before and a side node of its own, referring to both and to the step two back;
 * - `random`: a random DAG (fixed seed) where each node has 3 parents among the earlier ones and refers to 3 of its ancestors.
 */
export const VALIDATE_SHAPES = ['chain5', 'fan-in', 'ladder', 'random'] as const;
export type ValidateShape = (typeof VALIDATE_SHAPES)[number];

const ref = (id: string) => `{{nodes.${id}.output}}`;
const node = (id: string, refs: readonly string[]) =>
  `  ${id} [type=function toolCode=echo toolInput="${refs.length > 0 ? refs.map(ref).join(' ') : 'start'}"]`;

/** The DOT text of a plan of about `nodes` nodes of the shape. */
export function shapeText(shape: ValidateShape, nodes: number): string {
  const lines = [`digraph ${shape.replace('-', '_')} {`];
  if (shape === 'chain5') {
    for (let i = 0; i < nodes; i++)
      lines.push(
        node(
          `n${i}`,
          range(Math.max(0, i - 5), i).map((j) => `n${j}`),
        ),
      );
    for (let i = 1; i < nodes; i++) lines.push(`  n${i - 1} -> n${i}`);
  } else if (shape === 'fan-in') {
    const parents = range(0, nodes - 1).map((i) => `p${i}`);
    for (const p of parents) lines.push(node(p, []));
    lines.push(node('join', parents));
    for (const p of parents) lines.push(`  ${p} -> join`);
  } else if (shape === 'ladder') {
    const steps = Math.floor(nodes / 2);
    for (let i = 0; i < steps; i++) {
      lines.push(node(`t${i}`, []));
      lines.push(node(`s${i}`, [`t${i}`, ...(i > 0 ? [`s${i - 1}`] : []), ...(i > 1 ? [`s${i - 2}`] : [])]));
      lines.push(`  t${i} -> s${i}`);
      if (i > 0) lines.push(`  s${i - 1} -> s${i}`);
    }
  } else {
    const random = seededRandom(15);
    const parents: number[][] = [[]];
    for (let i = 1; i < nodes; i++) parents.push([...new Set(range(0, 3).map(() => Math.floor(random() * i)))]);
    for (let i = 0; i < nodes; i++) {
      // Ancestors by a short random walk up the parents: references that are upstream, near and far.
      const refs = new Set<number>();
      for (let k = 0; k < 3 && parents[i]!.length > 0; k++) {
        let at = i;
        for (let step = 0, steps = 1 + Math.floor(random() * 8); step < steps && parents[at]!.length > 0; step++)
          at = parents[at]![Math.floor(random() * parents[at]!.length)]!;
        refs.add(at);
      }
      lines.push(
        node(
          `n${i}`,
          [...refs].map((j) => `n${j}`),
        ),
      );
    }
    for (let i = 1; i < nodes; i++) for (const p of parents[i]!) lines.push(`  n${p} -> n${i}`);
  }
  lines.push('}');
  return lines.join('\n');
}

/**
 * Each shape validated in a process of its own (what `dotplan validate` does, as a user meets it): the
 * best of three times in ms, and the process's peak resident memory in MB (the whole process, Node
 * itself included). Measured once, on SQLite's row: validation reads no database.
 */
export async function measureValidateShapes(backend: BenchBackend, nodes: number): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  for (const shape of VALIDATE_SHAPES) {
    const { ms, peakMb } = await probe(shape, nodes);
    out.push({ backend, scenario: `validate-${shape}`, value: Math.round(ms * 10) / 10, unit: 'ms' });
    out.push({ backend, scenario: `validate-${shape}-mb`, value: Math.round(peakMb), unit: 'MB' });
  }
  return out;
}

const run = promisify(execFile);

async function probe(shape: ValidateShape, nodes: number): Promise<{ ms: number; peakMb: number }> {
  const script = fileURLToPath(new URL(`./validate-probe${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
  // From the sources (the tests), the probe runs through tsx as they do; the built package runs it with node alone.
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const { stdout } = await run(process.execPath, [...loader, script, shape, String(nodes)], { maxBuffer: 1024 * 1024 });
  const line = stdout.trim().split('\n').at(-1) ?? '';
  const parsed = JSON.parse(line) as { ms: number; peakMb: number; valid: boolean; error?: string };
  if (!parsed.valid) throw new Error(`the validate benchmark's ${shape} plan is not valid: ${parsed.error ?? ''}`);
  return parsed;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
