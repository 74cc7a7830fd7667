import { writeDot } from '../dot/index.js';
import { InvalidArgumentError } from '../errors/errors.js';
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
    const others = unknown.length > 1 ? ` (nor ${unknown.length > 2 ? 'are' : 'is'} ${unknown.slice(1).map((k) => `"${k}"`).join(', ')})` : '';
    throw InvalidArgumentError.about(`values.${unknown[0]!}`, `is not a parameter of template "${template.name}"${others}; its parameters: ${list}`);
  }
  const missing = declared.filter((p) => p.default === undefined && values[p.name] === undefined);
  if (missing.length > 0) {
    const others = missing.length > 1 ? ` (so ${missing.length > 2 ? 'are' : 'is'} ${missing.slice(1).map((p) => `"${p.name}"`).join(', ')})` : '';
    throw InvalidArgumentError.about(`values.${missing[0]!.name}`, `is required: template "${template.name}" declares it without a default${others}`);
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
