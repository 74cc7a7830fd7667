import type { Diagnostic } from '../model/diagnostics.js';
import { parseParamDeclarations } from '../model/params.js';
import { findReferences } from '../model/references.js';
import { atNode, q, type Check } from './context.js';
import { suggester } from './suggest.js';

/** The attributes whose text may hold `{{...}}` references, resolved when the node runs. */
export const REFERENCE_ATTRIBUTES = ['toolInput', 'toolCalls', 'question', 'task', 'payload'] as const;

/**
 * `{{nodes.X...}}` names an existing node upstream of the referring node (its output exists by the
 * time the node runs); `{{params.x}}` names a parameter declared in the graph's `params`.
 */
export const checkReferences: Check = (ctx) => {
  const out: Diagnostic[] = [];
  const declaredParams = parseParamDeclarations(ctx.graph.attributes['params']);
  const paramNames = declaredParams.ok ? declaredParams.params.map((p) => p.name) : undefined;
  const declared = new Set(paramNames);
  const suggestParam = suggester(paramNames ?? []);
  const suggestNode = suggester(ctx.graph.nodes.map((n) => n.id));

  for (const node of ctx.graph.nodes) {
    for (const attribute of REFERENCE_ATTRIBUTES) {
      const text = node.attributes[attribute];
      if (text === undefined) continue;
      for (const ref of findReferences(text)) {
        const where = atNode(node, attribute);
        if (ref.kind === 'invalid') {
          out.push({
            code: 'REFERENCE_INVALID',
            severity: 'error',
            message: `${ref.raw} in ${attribute} of node ${q(node.id)} is not a valid reference: ${ref.reason}`,
            ...where,
            fix: 'write {{nodes.<id>.output}}, {{nodes.<id>.output.<path>}}, {{nodes.<id>.answer}} or {{params.<name>}}',
          });
        } else if (ref.kind === 'params') {
          if (paramNames === undefined || declared.has(ref.name)) continue;
          out.push({
            code: 'PARAM_UNDECLARED',
            severity: 'error',
            message: `${ref.raw} in ${attribute} of node ${q(node.id)} names parameter ${q(ref.name)}, which the plan does not declare${paramNames.length ? ` (declared: ${listed(paramNames)})` : ' (it declares none)'}`,
            ...where,
            fix: suggestParam(
              ref.name,
              paramNames.length <= LISTED
                ? `declare it in the graph attributes: params="${[...paramNames, ref.name].join(',')}"`
                : `declare it in the graph attribute params: add ",${ref.name}"`,
            ),
          });
        } else if (!ctx.nodes.has(ref.node)) {
          out.push({
            code: 'REFERENCE_UNKNOWN_NODE',
            severity: 'error',
            message: `${ref.raw} in ${attribute} of node ${q(node.id)} names node ${q(ref.node)}, which is not in the plan`,
            ...where,
            fix: suggestNode(ref.node, `refer to an upstream node's id`),
          });
        } else if (!ctx.isUpstream(ref.node, node.id)) {
          const self = ref.node === node.id;
          out.push({
            code: 'REFERENCE_NOT_UPSTREAM',
            severity: 'error',
            message: self
              ? `${ref.raw} in ${attribute} of node ${q(node.id)} refers to the node itself, whose ${ref.field} does not exist yet when it runs`
              : `${ref.raw} in ${attribute} of node ${q(node.id)} uses node ${q(ref.node)}, which is not upstream of it, so its ${ref.field} may not exist when ${q(node.id)} runs`,
            ...where,
            fix: self
              ? `refer to an upstream node instead`
              : `add an edge ${ref.node} -> ${node.id} (directly or through other nodes), or refer to an upstream node`,
          });
        }
      }
    }
  }
  return out;
};

/** Names listed in full in a message; a longer list is cut, so that N diagnostics do not each repeat N names. */
const LISTED = 10;

function listed(names: readonly string[]): string {
  return names.length <= LISTED ? names.join(', ') : `${names.slice(0, LISTED).join(', ')} and ${names.length - LISTED} more`;
}
