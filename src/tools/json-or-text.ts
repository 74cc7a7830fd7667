/** A text as the JSON value it holds when it parses, else the text itself (a tool input, an upstream output inserted as text). */
export function jsonOrText(text: string): unknown {
  if (!mayBeJson(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * False only where JSON.parse would throw, told by the first characters: text that does not open a
 * JSON value, and `{` not followed by a key or `}` — a `{{reference}}` — so that the common inputs
 * that are not JSON cost no exception (a thrown SyntaxError is some 7–9 µs here, paid per node
 * validated and per tool run). Anything else is left to JSON.parse.
 */
function mayBeJson(text: string): boolean {
  const i = skipJsonSpace(text, 0);
  const first = text.charCodeAt(i);
  if (first === OPEN_BRACE) {
    const next = text.charCodeAt(skipJsonSpace(text, i + 1));
    return next === QUOTE || next === CLOSE_BRACE;
  }
  // [ " - 0-9 t f n: an array, string, number or literal may follow (NaN past the end: none).
  return first === 0x5b || first === QUOTE || first === 0x2d || (first >= 0x30 && first <= 0x39) || first === 0x74 || first === 0x66 || first === 0x6e;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;

/** The offset of the first character at or after `from` that is not JSON's whitespace (RFC 8259: space, tab, LF, CR). */
function skipJsonSpace(text: string, from: number): number {
  let i = from;
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
  return i;
}
