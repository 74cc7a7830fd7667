import { z } from 'zod';
import { fromJson, SETTINGS } from '../config/settings.js';
import { NOTIFIER_TYPES } from '../notify/targets.js';
import { describeIssue, shown } from '../errors/describe-issue.js';
import { toolSchema } from '../tools/tool-schema.js';
import { agentSchema } from '../agents/agent-schema.js';

/**
 * `openDotplan`'s options: the settings over the defaults, checked by the same table of settings the
 * config file and the environment are read with (config/settings.ts), so a setting is refused in the
 * same words wherever it comes from; and the application's tools, checked by the tool schema a tools
 * module's tools are checked by.
 */

/** A notifier as `Announcer` takes it: complete (the config file's shorthand is read by `resolveConfig`). */
const notifier = z.strictObject({
  name: z.string().regex(/^[\w.-]+$/, 'must be a word (letters, digits, _ . -)'),
  type: z.enum(NOTIFIER_TYPES),
  url: z.url({ protocol: /^https?$/ }),
  secret: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  timeoutMs: z.int().min(1),
  unresolved: z.string().optional(),
});

/** Settings that are not in the table because no file or variable sets them as such. */
const EXTRA_KEYS = new Map<string, z.ZodType>([
  ['openai.apiKey', z.string().min(1)],
  ['configFile', z.string().min(1)],
]);

export const configOverrides = z.unknown().superRefine((value, ctx) => {
  const settings = new Map(SETTINGS.map((s) => [s.key, s]));
  const groups = new Set([...settings.keys(), ...EXTRA_KEYS.keys()].flatMap((key) => (key.includes('.') ? [key.slice(0, key.indexOf('.'))] : [])));
  const visit = (object: unknown, prefix: string[]) => {
    if (object === null || typeof object !== 'object' || Array.isArray(object)) {
      ctx.addIssue({ code: 'invalid_type', expected: 'object', path: prefix, input: object });
      return;
    }
    const unknown: string[] = [];
    for (const [name, item] of Object.entries(object)) {
      if (item === undefined) continue;
      const path = [...prefix, name];
      const key = path.join('.');
      const setting = settings.get(key);
      const extra = EXTRA_KEYS.get(key);
      if (setting?.kind === 'notifiers') {
        const parsed = z.array(notifier).safeParse(item, { error: describeIssue, reportInput: true });
        for (const issue of parsed.success ? [] : parsed.error.issues) ctx.addIssue({ ...issue, path: [...path, ...issue.path] });
      } else if (setting) {
        const parsed = fromJson(setting.kind, item, process.cwd());
        if (!parsed.ok) ctx.addIssue({ code: 'custom', path, message: `${parsed.reason}${setting.hideValue ? '' : ` (got ${shown(item)})`}`, input: item });
      } else if (extra) {
        const parsed = extra.safeParse(item, { error: describeIssue, reportInput: true });
        for (const issue of parsed.success ? [] : parsed.error.issues) ctx.addIssue({ ...issue, path: [...path, ...issue.path] });
      } else if (prefix.length === 0 && groups.has(name)) {
        visit(item, path);
      } else {
        unknown.push(name);
      }
    }
    if (unknown.length > 0) ctx.addIssue({ code: 'unrecognized_keys', keys: unknown, path: prefix, input: object as Record<string, unknown> });
  };
  visit(value, []);
});

export const toolList = z.array(toolSchema);

/** The application's agents: checked by the schema the config file's `agents` are checked by. */
export const agentList = z.array(agentSchema);
