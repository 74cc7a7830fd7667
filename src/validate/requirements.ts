import type { Diagnostic, Severity } from '../model/diagnostics.js';
import type { GraphNode, NodeStatus } from '../model/types.js';
import { atNode, q, type Check } from './context.js';

/**
 * Per-type attributes a node needs in order to run. A node about to run (`ready`, `running`)
 * without them is an error; a `pending` one gets a warning (a planner may fill them in later);
 * finished nodes are not checked. A node waiting for a person (`awaiting_input`, or a confirm node
 * about to ask) needs a question: missing is an error, present but empty a warning.
 */
const RUN_STATUSES: ReadonlySet<NodeStatus> = new Set(['ready', 'running']);

function severityFor(status: NodeStatus | undefined): Severity | undefined {
  if (status !== undefined && RUN_STATUSES.has(status)) return 'error';
  if (status === 'pending') return 'warning';
  return undefined;
}

function isBlank(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}

export const checkRequirements: Check = (ctx) => {
  const out: Diagnostic[] = [];
  for (const node of ctx.graph.nodes) {
    const type = ctx.typeOf(node);
    const status = ctx.statusOf(node);
    if (!type) continue;
    const severity = severityFor(status);
    const need = (attribute: string, code: string, purpose: string, fix: string): void => {
      if (severity === undefined || !isBlank(node.attributes[attribute])) return;
      const when = status === 'pending' ? 'it needs one before it can run' : `it is ${status} and cannot run without one`;
      out.push({
        code,
        severity,
        message: `${type} node ${q(node.id)} has no ${attribute} (${purpose}); ${when}`,
        ...atNode(node, attribute),
        fix,
      });
    };
    if (type === 'function') need('toolCode', 'TOOL_CODE_MISSING', 'the tool to call', 'add toolCode="<a registered tool>", e.g. toolCode="echo"');
    if (type === 'multiFunction')
      need(
        'toolCalls',
        'TOOL_CALLS_MISSING',
        'the tools to call',
        `add toolCalls='[{"toolCode": "echo", "toolInput": "hi"}]' (written with escaped quotes in DOT)`,
      );
    if (type === 'agent') {
      need('agentCode', 'AGENT_CODE_MISSING', 'which agent runs it', 'add agentCode="<agent>"');
      need('task', 'AGENT_TASK_MISSING', 'the instruction for the agent', 'add task="<what the agent should do>"');
    }
    checkQuestion(node, type, status, out);
  }
  return out;
};

function checkQuestion(node: GraphNode, type: string, status: NodeStatus | undefined, out: Diagnostic[]): void {
  const asking = status === 'awaiting_input' || (type === 'confirm' && status === 'ready');
  const willAsk = type === 'confirm' && status === 'pending';
  if (!asking && !willAsk) return;
  const question = node.attributes['question'];
  if (!isBlank(question)) return;
  const missing = question === undefined;
  out.push({
    code: missing ? 'QUESTION_MISSING' : 'QUESTION_EMPTY',
    // A person asked nothing cannot answer: an empty question is an error; a missing one on a confirm
    // node that has not asked yet is a warning (its label may still be edited into a question).
    severity: asking || !missing ? 'error' : 'warning',
    message: `${asking ? `node ${q(node.id)} waits for a person's answer` : `confirm node ${q(node.id)} will ask a person`} but ${missing ? 'has no question' : 'its question is empty'}`,
    ...atNode(node, 'question'),
    fix: 'add question="<what the person should answer>"',
  });
}
