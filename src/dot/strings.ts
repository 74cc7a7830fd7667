/**
 * How values are quoted in DOT — the one convention the reader and the writer share.
 *
 * DOT itself only gives `\"` a meaning inside a quoted string, which leaves no way to write a value
 * that ends with a backslash. dotplan therefore uses this convention (a superset of DOT's):
 *
 * - the writer escapes `\` as `\\` and `"` as `\"`, and writes every other character as it is
 *   (new lines, carriage returns, CJK, emoji, `}` and `;` included);
 * - the reader turns `\\` into `\` and `\"` into `"`, drops a backslash-newline (DOT's line
 *   continuation), and leaves every other backslash sequence as typed — so Graphviz label escapes
 *   such as `\n`, `\l` and `\N` keep their meaning when the plan is drawn.
 *
 * Ids are written bare when they are plain identifiers or plain integers and not DOT keywords;
 * everything else is quoted. HTML-like strings (`<...>`) are read as their text, angle brackets
 * included, and written back as HTML only for label attributes, where Graphviz draws them.
 */

const KEYWORDS = new Set(['node', 'edge', 'graph', 'digraph', 'subgraph', 'strict']);
const PLAIN_ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PLAIN_INTEGER = /^(?:0|[1-9][0-9]*)$/;
const LABEL_KEYS = new Set(['label', 'xlabel', 'headlabel', 'taillabel']);

/** A node id, attribute key or graph name, bare when safe, quoted otherwise. */
export function formatId(id: string): string {
  if (PLAIN_INTEGER.test(id)) return id;
  if (PLAIN_ID.test(id) && !KEYWORDS.has(id.toLowerCase())) return id;
  return quote(id);
}

/** An attribute value: always quoted, except HTML labels. */
export function formatValue(key: string, value: string): string {
  return LABEL_KEYS.has(key) && isHtmlString(value) ? value : quote(value);
}

export function quote(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Decodes the text between the quotes of a DOT string, per the convention above. */
export function unquote(body: string): string {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') continue;
    const next = body[i + 1];
    if (next === '\\' || next === '"') {
      out.push(body.slice(start, i), next);
      start = i + 2;
      i++;
    } else if (next === '\n' || (next === '\r' && body[i + 2] === '\n')) {
      out.push(body.slice(start, i));
      i += next === '\n' ? 1 : 2;
      start = i + 1;
    }
  }
  out.push(body.slice(start));
  return out.join('');
}

/** `<...>` whose first `<` closes at the last `>`: what DOT reads as one HTML-like string. */
export function isHtmlString(value: string): boolean {
  if (!value.startsWith('<') || !value.endsWith('>')) return false;
  let depth = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '<') depth++;
    else if (c === '>') {
      depth--;
      if (depth === 0 && i !== value.length - 1) return false;
    }
  }
  return depth === 0;
}
