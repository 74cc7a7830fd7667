/**
 * Template parameters, declared as a graph attribute: `params="topic,audience=general readers"`.
 * A name without `=` is required; `name=value` gives a default.
 */
export interface ParamDeclaration {
  name: string;
  default?: string;
}

const NAME = /^[A-Za-z_][\w-]*$/;

export type ParamsParse = { ok: true; params: ParamDeclaration[] } | { ok: false; reason: string };

export function parseParamDeclarations(text: string | undefined): ParamsParse {
  if (text === undefined || text.trim() === '') return { ok: true, params: [] };
  const params: ParamDeclaration[] = [];
  const seen = new Set<string>();
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    if (!NAME.test(name)) {
      return { ok: false, reason: `"${name}" is not a parameter name (letters, digits, _ and -, starting with a letter or _)` };
    }
    if (seen.has(name)) return { ok: false, reason: `parameter "${name}" is declared twice` };
    seen.add(name);
    params.push(eq < 0 ? { name } : { name, default: part.slice(eq + 1).trim() });
  }
  return { ok: true, params };
}
