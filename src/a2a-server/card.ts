import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from '@a2a-js/sdk';
import { packageVersion } from '../config/package-version.js';
import type { DotplanReads } from '../operations/dotplan-reads.js';
import { defaultTemplateDirs, listTemplates, type TemplateInfo } from '../templates/index.js';
import { GOAL_SKILL } from './message.js';

/**
 * dotplan's agent card (`/.well-known/agent-card.json`, public as A2A expects): one skill per template
 * that loads (its id the template's name, its parameters in the description and an example), a
 * `goal` skill for a reflection plan, the JSON-RPC interface at `/v1/a2a` and the bearer scheme of
 * `dotplan serve`'s tokens. Read from the template folders on each request, so a new template is a
 * new skill without a restart.
 */

/** Where the JSON-RPC endpoint is, under the server's base URL. */
export const A2A_PATH = '/v1/a2a';

/** A template's name as a skill id (never a path: the server's files are not the client's to name). */
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

const MODES = ['text/plain', 'application/json'];

/** The templates a task may name as its skill. */
export function templateSkills(dotplan: DotplanReads): TemplateInfo[] {
  return listTemplates(defaultTemplateDirs(dotplan.cwd)).filter((t) => t.error === undefined && SKILL_NAME.test(t.name) && t.name !== GOAL_SKILL);
}

/** The card, its interface at `baseUrl` (the server's public URL, or the one the request came to). */
export function agentCard(dotplan: DotplanReads, baseUrl: string): AgentCard {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    name: 'dotplan',
    description:
      'Runs execution plans written as Graphviz DOT digraphs: steps that call tools, ask people, or hand work to agents. ' +
      'Each skill makes a plan: a template (name the skill in the message metadata or a data part, {"skill": "<name>", "values": {...}}) ' +
      'or a goal (the message text; an LLM writes and revises the plan). The task id is the plan id. A question or a review ' +
      'of the plan comes back as INPUT_REQUIRED with its options; reply in the same task (taskId and contextId) with the answer, ' +
      'or "approve" / "reject <reason>". A completed task has an artifact "result": the final answer, or the outputs of the end nodes.',
    supportedInterfaces: [{ url: `${base}${A2A_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: undefined,
    version: packageVersion(),
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            scheme: 'Bearer',
            bearerFormat: '',
            description:
              'A token from `dotplan token create --scope read|answer|operate`: read for GetTask, answer for replies to questions and reviews, ' +
              'operate to create and cancel tasks. While no token exists, a server on a loopback address serves local requests without one.',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [...templateSkills(dotplan).map(templateSkill), goalSkill()],
    signatures: [],
  };
}

function templateSkill(template: TemplateInfo): AgentSkill {
  const params = template.params.map((p) => (p.default === undefined ? `${p.name} (required)` : `${p.name} (default "${p.default}")`));
  const example = Object.fromEntries(template.params.filter((p) => p.default === undefined).map((p) => [p.name, `<${p.name}>`]));
  return {
    id: template.name,
    name: template.title,
    description: [
      template.description || `Runs the template ${template.name} as a workflow plan.`,
      `Parameters: ${params.length > 0 ? params.join(', ') : 'none'}; give them as "values" in a data part.`,
      'Questions its nodes ask come back as INPUT_REQUIRED; the result is the outputs of its end nodes.',
    ].join(' '),
    tags: ['template', 'workflow', template.name],
    examples: [JSON.stringify({ skill: template.name, values: example })],
    inputModes: MODES,
    outputModes: MODES,
    securityRequirements: [],
  };
}

function goalSkill(): AgentSkill {
  return {
    id: GOAL_SKILL,
    name: 'Reach a goal',
    description:
      'A reflection plan for a goal given as the message text: an LLM writes the plan, a worker runs its steps, and the LLM revises it ' +
      'as results come in, until it writes the final answer (the result). Needs a worker with an LLM endpoint (OPENAI_BASE_URL).',
    tags: ['goal', 'reflection', 'llm'],
    examples: ['Compare the three largest EU airports by passengers in 2023 and say which grew most.'],
    inputModes: MODES,
    outputModes: MODES,
    securityRequirements: [],
  };
}
