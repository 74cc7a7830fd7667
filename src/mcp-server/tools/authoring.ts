import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { llmSettings, missingEndpoint } from '../../llm/client.js';
import { defaultTemplateDirs, listTemplates } from '../../templates/index.js';
import type { ToolContext } from '../context.js';
import { diagnosticLine } from '../format.js';
import { guarded, ok, refused } from '../results.js';

/** A template's name (never a path: the server's files are not the client's to read). */
const TEMPLATE_NAME = /^[A-Za-z0-9][\w.-]*$/;

const DOT_EXAMPLE =
  'digraph ship {\n  ask  [type=confirm question="Ship version 2?" options="yes,no"]\n  ship [type=function toolCode=echo toolInput="shipping: {{nodes.ask.answer}}"]\n  ask -> ship [when="yes"]\n}';

/** Authoring: the templates, checking a DOT plan, creating a plan. */
export function registerAuthoringTools(server: McpServer, context: ToolContext): void {
  const { dotplan, by } = context;

  server.registerTool(
    'list_templates',
    {
      title: 'List plan templates',
      description:
        'Lists the plan templates a plan can be created from (create_plan with `template` and `values`): each with its name, title, ' +
        'description and parameters — a parameter without a default is required, one with a default may be left out. ' +
        'Use it before creating a plan from a template, to learn the template names and the values each needs. Takes no arguments.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () =>
      guarded(context, 'list_templates', async () => {
        const templates = listTemplates(defaultTemplateDirs(dotplan.cwd)).map(({ path: _path, ...info }) => ({
          ...info,
          params: info.params.map((p) => ({ ...p, required: p.default === undefined })),
        }));
        const lines = templates.map((t) => {
          const params = t.params.map((p) => (p.required ? `${p.name} (required)` : `${p.name}="${p.default ?? ''}"`)).join(', ') || 'no parameters';
          return `- ${t.name}: ${t.title}${t.description ? ` — ${t.description}` : ''}\n  parameters: ${params}${t.error ? `\n  cannot be used: ${t.error}` : ''}`;
        });
        return ok(templates.length === 0 ? 'no templates' : `${templates.length} templates:\n${lines.join('\n')}`, { templates });
      }),
  );

  server.registerTool(
    'validate_plan',
    {
      title: 'Validate a DOT plan',
      description:
        'Checks a plan written as a Graphviz DOT digraph the way create_plan would, and stores nothing. ' +
        'Returns `valid` (true when there is no error; warnings are allowed) and every diagnostic with its code, severity, message, ' +
        'line, node, attribute and a `fix` saying what to change. An invalid plan is a normal result (not an error): read the fixes, ' +
        'change the DOT and validate again before calling create_plan. Every DOT node is a step (`type` function, multiFunction, confirm ' +
        'or agent); `a -> b` means b waits for a. Example `dot`:\n' +
        DOT_EXAMPLE,
      inputSchema: z.object({
        dot: z.string().describe('The whole plan: one `digraph { ... }` in Graphviz DOT.'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ dot }) =>
      guarded(context, 'validate_plan', async () => {
        const { valid, diagnostics } = await dotplan.validate(dot, { source: '<dot>' });
        const errors = diagnostics.filter((d) => d.severity === 'error').length;
        const warnings = diagnostics.length - errors;
        const verdict = valid
          ? `valid${warnings > 0 ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}: create_plan with this dot would store it`
          : `NOT valid: ${errors} error${errors === 1 ? '' : 's'}${warnings > 0 ? ` and ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}; fix each one and validate again`;
        const lines = diagnostics.map((d) => `- ${diagnosticLine(d)}`);
        return ok([verdict, ...lines].join('\n'), { valid, errors, warnings, diagnostics });
      }),
  );

  server.registerTool(
    'create_plan',
    {
      title: 'Create a plan',
      description:
        'Validates, stores and starts a plan, and returns its id. Give exactly one of: `template` (a name from list_templates) with ' +
        '`values` for its parameters; `dot` (a plan written as a DOT digraph — check it with validate_plan first); or `goal` (a ' +
        'reflection plan: an LLM writes and rewrites the plan to reach the goal; needs a worker with an LLM endpoint). ' +
        '`review: true` makes the plan wait for a reviewer (approve_review / reject_review) before anything runs. ' +
        'This server stores and steers plans; a dotplan worker on the same database runs their nodes. Afterwards, follow the plan ' +
        'with show_plan and answer its questions from list_inbox. An invalid plan is refused with every problem and its fix. ' +
        'Examples: {"template": "approval", "values": {"item": "a new laptop"}}; {"dot": "digraph g { a [type=function toolCode=echo toolInput=\\"hi\\"] }"}; ' +
        '{"goal": "Summarise the three latest releases", "review": true}.',
      inputSchema: z.object({
        template: z
          .string()
          .regex(TEMPLATE_NAME, 'a template name from list_templates (not a path)')
          .optional()
          .describe('A template name from list_templates, e.g. "approval". Not with `dot` or `goal`.'),
        values: z
          .record(z.string(), z.string())
          .optional()
          .describe('With `template`: a value for each parameter, e.g. {"item": "a new laptop"}; required parameters must be given, the others have defaults.'),
        dot: z.string().optional().describe('A whole plan as one Graphviz DOT `digraph { ... }` (see validate_plan). Not with `template` or `goal`.'),
        goal: z.string().optional().describe('What a reflection plan should achieve, in words; an LLM writes the plan. Not with `template` or `dot`.'),
        title: z.string().optional().describe("The plan's title (default: the graph's label, or the goal)."),
        review: z.boolean().optional().describe('true: the plan waits for a reviewer before anything runs (as review="required" in the DOT).'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ template, values, dot, goal, title, review }) =>
      guarded(context, 'create_plan', async () => {
        const given = [template, dot, goal].filter((v) => v !== undefined).length;
        if (given !== 1)
          return refused(
            'INVALID_INPUT',
            `give exactly one of \`template\` (with \`values\`), \`dot\` or \`goal\` (${given === 0 ? 'none was given' : `${given} were given`})`,
          );
        if (values !== undefined && template === undefined) return refused('INVALID_INPUT', '`values` go with `template`; a `dot` plan carries its own values');
        const named = title !== undefined ? { title } : {};
        const input =
          template !== undefined
            ? { template, values: values ?? {}, ...named }
            : dot !== undefined
              ? { dot, source: '<dot>', ...named }
              : { goal: goal!, ...named };
        const created = await dotplan.create(input, { by, ...(review ? { review: true } : {}) });
        const source = template !== undefined ? `template ${template}` : dot !== undefined ? '<dot>' : undefined;
        const warnings = created.warnings.map((w) => `- warning: ${diagnosticLine(w, source)}`);
        const noLlm = created.mode === 'reflection' ? missingEndpoint(llmSettings(dotplan.config)) : undefined;
        if (noLlm !== undefined) warnings.push(`- warning: where this server runs, ${noLlm}; until a worker with one serves this plan, it waits`);
        const next =
          created.status === 'awaiting_review'
            ? 'It waits for review: approve_review runs it, reject_review ends it.'
            : created.mode === 'reflection'
              ? 'An LLM writes its plan on a worker with an LLM endpoint; follow it with show_plan.'
              : 'A dotplan worker on this database runs its nodes; follow it with show_plan, and answer its questions from list_inbox.';
        const text = [`created plan ${created.id} "${created.title}": ${created.status} (${created.mode}). ${next}`, ...warnings].join('\n');
        return ok(text, {
          id: created.id,
          title: created.title,
          status: created.status,
          mode: created.mode,
          warnings: created.warnings,
          ...(noLlm !== undefined ? { llm: noLlm } : {}),
        });
      }),
  );
}
