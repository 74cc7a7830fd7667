/**
 * `{{...}}` references inside node inputs (SPEC §2), the one definition the validator and the
 * run-time resolution share: `{{params.name}}`, `{{nodes.<id>.output}}` (JSON path allowed:
 * `{{nodes.fetch.output.items[0].url}}`), `{{nodes.<id>.answer}}`. Node ids that are not plain
 * identifiers may be quoted: `{{nodes["step 1"].output}}`. A `{{...}}` whose path starts with the
 * word `params` or `nodes` is a reference — a malformed one (`{{nodes.}}`, `{{params}}`) is invalid;
 * any other `{{...}}` (a `template` tool's `{{name}}`, `{{#each}}`) is text left for the tool.
 */
export type Reference =
  | { kind: 'params'; name: string; raw: string; index: number }
  | { kind: 'nodes'; node: string; field: 'output' | 'answer'; path: PathSegment[]; raw: string; index: number }
  | { kind: 'invalid'; raw: string; index: number; reason: string };

export type PathSegment = string | number;

const IDENT = /^[A-Za-z_\u0080-\uffff][\w\u0080-\uffff-]*$/u;

/** The word a reference's path starts with: `params` or `nodes`, then the end, `.`, `[` or anything that cannot continue a name. */
const REFERENCE_HEAD = /^(?:params|nodes)(?![\w\u0080-\uffff-])/u;

/**
 * Every reference (`{{params.…}}`, `{{nodes.…}}`) in a text, in order, parsed; other `{{...}}` are not references.
 * A `{{` runs to the first `}}` after it; in one pass, so that a text of N unclosed `{{` is read in linear time (a
 * lazy regular expression looked for the end from each of them).
 */
export function findReferences(text: string): Reference[] {
  const out: Reference[] = [];
  for (let open = text.indexOf('{{'); open >= 0;) {
    const close = text.indexOf('}}', open + 2);
    if (close < 0) break; // no `{{` after this one is closed either
    const body = text.slice(open + 2, close).trim();
    if (REFERENCE_HEAD.test(body)) out.push(parseReference(body, text.slice(open, close + 2), open));
    open = text.indexOf('{{', close + 2);
  }
  return out;
}

function parseReference(body: string, raw: string, index: number): Reference {
  const segments = parsePath(body);
  if (!segments) return { kind: 'invalid', raw, index, reason: `cannot read the path "${body}"` };
  const [head, ...rest] = segments;
  if (head === 'params') {
    const [name, ...more] = rest;
    if (typeof name !== 'string' || more.length > 0) {
      return { kind: 'invalid', raw, index, reason: 'a parameter reference is {{params.<name>}}' };
    }
    return { kind: 'params', name, raw, index };
  }
  if (head === 'nodes') {
    const [node, field, ...path] = rest;
    if (node === undefined || (field !== 'output' && field !== 'answer')) {
      return { kind: 'invalid', raw, index, reason: 'a node reference is {{nodes.<id>.output[.path]}} or {{nodes.<id>.answer}}' };
    }
    return { kind: 'nodes', node: String(node), field, path, raw, index };
  }
  return { kind: 'invalid', raw, index, reason: `cannot read the path "${body}"` };
}

/** Parses `a.b[0]["c d"].e` into segments; undefined when malformed. */
export function parsePath(body: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  let i = 0;
  const s = body.trim();
  let expectName = true;
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      if (expectName) return undefined;
      expectName = true;
      i++;
      continue;
    }
    if (c === '[') {
      const close = s.indexOf(']', i);
      if (close < 0) return undefined;
      const inner = s.slice(i + 1, close).trim();
      if (/^\d+$/.test(inner)) segments.push(Number(inner));
      else if (/^"(?:[^"\\]|\\.)*"$/.test(inner) || /^'(?:[^'\\]|\\.)*'$/.test(inner)) {
        segments.push(inner.slice(1, -1).replace(/\\(.)/g, '$1'));
      } else return undefined;
      i = close + 1;
      expectName = false;
      continue;
    }
    if (!expectName) return undefined;
    let j = i;
    while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
    const name = s.slice(i, j);
    if (!IDENT.test(name) && !/^\d+$/.test(name)) return undefined;
    segments.push(name);
    i = j;
    expectName = false;
  }
  if (expectName && segments.length > 0) return undefined;
  return segments.length > 0 ? segments : undefined;
}
