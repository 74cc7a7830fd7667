import { writeDot } from '../dot/index.js';
import { InvalidInputError } from '../errors/errors.js';
import { findReferences } from '../model/references.js';
import type { PlanGraph } from '../model/types.js';
import type { Template } from './catalogue.js';

/** A template with its parameter values: the plan to store. */
export interface Instantiation {
  /** The template's graph; `{{params.x}}` references stay (resolved at run time), the label is rendered. */
  graph: PlanGraph;
  /** `writeDot(graph)`: the plan's first revision. */
  dot: string;
  /** Every declared parameter with its value (given, else its default). */
  params: Record<string, string>;
  /** The rendered label, else the template's name. */
  title: string;
}

/**
 * Checks `values` against the template's declared parameters (unknown names and missing required
 * ones are errors that name the declared parameters), fills in defaults and returns the plan.
 */
export function instantiateTemplate(template: Template, values: Record<string, string>): Instantiation {
  const declared = template.params;
  const names = declared.map((p) => p.name);
  const unknown = Object.keys(values).filter((key) => !names.includes(key));
  if (unknown.length > 0) {
    const list = names.length > 0 ? names.join(', ') : 'none';
    throw new InvalidInputError(
      `template "${template.name}" has no parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; declared parameters: ${list}`,
    );
  }
  const missing = declared.filter((p) => p.default === undefined && values[p.name] === undefined);
  if (missing.length > 0) {
    const flags = missing.map((p) => `--set ${p.name}=...`).join(' ');
    throw new InvalidInputError(
      `template "${template.name}" needs a value for ${missing.map((p) => `"${p.name}"`).join(', ')} (give ${flags})`,
    );
  }
  const params: Record<string, string> = {};
  for (const p of declared) params[p.name] = values[p.name] ?? p.default ?? '';

  const graph = structuredClone(template.graph);
  const label = graph.attributes.label;
  if (label !== undefined) graph.attributes.label = renderParams(label, params);
  const title = graph.attributes.label?.trim() || template.name;
  return { graph, dot: writeDot(graph), params, title };
}

/** Replaces `{{params.x}}` references with their values; other text (and other references) stays. */
export function renderParams(text: string, params: Record<string, string>): string {
  let out = '';
  let at = 0;
  for (const ref of findReferences(text)) {
    if (ref.kind !== 'params' || params[ref.name] === undefined) continue;
    out += text.slice(at, ref.index) + params[ref.name];
    at = ref.index + ref.raw.length;
  }
  return out + text.slice(at);
}

const KEY = /^[A-Za-z_][\w-]*$/;

/** `["topic=AI", "audience=kids"]` → `{ topic: "AI", audience: "kids" }`; the value may contain `=`. */
export function parseSetFlags(entries: readonly string[]): Record<string, string> {
  const out = new Map<string, string>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const key = eq < 0 ? '' : entry.slice(0, eq).trim();
    if (eq < 0 || !KEY.test(key)) {
      throw new InvalidInputError(`--set expects key=value (a parameter name, "=", then the value), got ${JSON.stringify(entry)}`);
    }
    if (out.has(key)) throw new InvalidInputError(`--set ${key} is given twice`);
    out.set(key, entry.slice(eq + 1));
  }
  return Object.fromEntries(out);
}
