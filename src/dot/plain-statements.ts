import type { AttributeASTNode, ClusterStatementASTNode, EdgeASTNode, FileRange, LiteralASTNode, NodeASTNode, NodeRefASTNode } from 'ts-graphviz/ast';

/**
 * A piece of a DOT body (pieces.ts) read without the parser when every statement in it is plain, as
 * a machine-written or tidy plan's are: `id [key=value, …]`, `id -> id -> … [key=value, …]` and
 * `key = value`, each optionally ended by `;`, ids unquoted ASCII words, numerals or quoted strings.
 * The syntax trees are those ts-graphviz's parser makes of the same piece, with the same lines,
 * columns and offsets, for the same walker (a quoted literal's `value` is its raw text between the
 * quotes: the walker reads quoted literals from the original text, by their offsets). ts-graphviz's
 * parser reads about a megabyte a second; this reads the benchmark plans' pieces several times faster.
 *
 * Only an optimisation: undefined as soon as anything is not plain — a comment, a keyword, a
 * subgraph or `{…}` group, a port, an HTML string, a line break where the parser's grammar allows
 * only spaces, tokens that touch — and the parser reads that piece. A property test holds the two
 * equal on every piece this reads (test/dot/plain-statements.property.test.ts), and the pieces
 * property test holds whole plans read either way equal.
 */
export function plainStatements(text: string, start: number, end: number, head: string): ClusterStatementASTNode[] | undefined {
  return new PlainReader(text, start, end, head.length).statements();
}

/** Longer edge chains are left to the parser, which refuses chains of more than 1,000 edges. */
const MAX_CHAIN = 100;

/** Character codes the reader compares with. */
const Char = {
  Tab: 9,
  LineFeed: 10,
  CarriageReturn: 13,
  Space: 32,
  Quote: 34,
  Dollar: 36,
  Comma: 44,
  Minus: 45,
  Dot: 46,
  Zero: 48,
  Nine: 57,
  Semicolon: 59,
  Equals: 61,
  Greater: 62,
  OpenBracket: 91,
  Backslash: 92,
  CloseBracket: 93,
  Underscore: 95,
} as const;

const isDigit = (c: number) => c >= Char.Zero && c <= Char.Nine;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === Char.Underscore || c === Char.Dollar;
/** Characters that may continue an id in the parser's grammar (non-ASCII letters and digits among them). */
const continuesId = (c: number) => isLetter(c) || isDigit(c) || c === Char.Dot || c >= 128;
const isBlank = (c: number) => c === Char.Space || c === Char.Tab;
const isLineBreak = (c: number) => c === Char.LineFeed || c === Char.CarriageReturn;
/** What a plain statement may start with: a word, a numeral's digit or a quoted string. */
const startsStatement = (c: number) => isLetter(c) || isDigit(c) || c === Char.Quote;
/** Unquoted words the parser takes for a keyword where a statement starts (`node [...]`, `subgraph {...}`). */
const KEYWORD = /^(?:node|edge|graph|subgraph)$/i;

class PlainReader {
  #at: number;
  /** The offset of the last line feed before #at, or of the piece's start less one while on its first line. */
  #lineFeed: number;
  #line = 1;

  constructor(
    private readonly text: string,
    private readonly start: number,
    private readonly end: number,
    /** Length of the `digraph{` the parser's copy of the piece starts with: positions are given as in that copy. */
    private readonly head: number,
  ) {
    this.#at = start;
    this.#lineFeed = start - 1;
  }

  statements(): ClusterStatementASTNode[] | undefined {
    const out: ClusterStatementASTNode[] = [];
    for (;;) {
      this.#skip(true);
      if (this.#at >= this.end) return out;
      const statement = this.#statement();
      if (!statement) return undefined;
      out.push(statement);
    }
  }

  #statement(): ClusterStatementASTNode | undefined {
    const begin = this.#position();
    const first = this.#literal(true);
    if (!first) return undefined;
    this.#skip(false);
    const c = this.#code();
    if (c === Char.Equals) {
      this.#at++;
      this.#skip(false);
      const value = this.#literal(false);
      if (!value) return undefined;
      this.#skip(false);
      if (!this.#endStatement(true)) return undefined;
      return { type: 'Attribute', key: first, value, children: [], location: this.#range(begin) } as ClusterStatementASTNode;
    }
    if (this.#atArrow()) return this.#edge(begin, first);
    const children = this.#attributesAfter();
    if (!children || !this.#endStatement(false)) return undefined;
    const node: NodeASTNode = { type: 'Node', id: first, children, location: this.#range(begin) };
    return node;
  }

  /** A statement's attribute list, if one follows on its line, and the blanks after it. */
  #attributesAfter(): AttributeASTNode[] | undefined {
    if (this.#code() !== Char.OpenBracket) return [];
    const list = this.#attributeList();
    this.#skip(false);
    return list;
  }

  #edge(begin: FileRange['start'], first: LiteralASTNode): EdgeASTNode | undefined {
    const targets: NodeRefASTNode[] = [this.#ref(first)];
    while (this.#atArrow()) {
      if (targets.length > MAX_CHAIN) return undefined;
      this.#at += 2;
      this.#skip(false);
      const target = this.#literal(false);
      if (!target) return undefined;
      targets.push(this.#ref(target));
      this.#skip(false);
    }
    // After a target the parser reads on over line breaks (a `->`, `[` or `;` on a later line is the edge's): left to it.
    if (isLineBreak(this.#code())) return this.#restIsNewStatement() ? this.#edgeOf(begin, targets, []) : undefined;
    const children = this.#attributesAfter();
    if (!children || !this.#endStatement(false)) return undefined;
    return this.#edgeOf(begin, targets, children);
  }

  #edgeOf(begin: FileRange['start'], targets: NodeRefASTNode[], children: AttributeASTNode[]): EdgeASTNode {
    return { type: 'Edge', targets: targets as EdgeASTNode['targets'], children, location: this.#range(begin) };
  }

  /** After a line break that ends a node or an edge statement: what follows starts a statement of its own (or nothing does). */
  #restIsNewStatement(): boolean {
    let i = this.#at;
    while (i < this.end && (isBlank(this.text.charCodeAt(i)) || isLineBreak(this.text.charCodeAt(i)))) i++;
    if (i >= this.end) return true;
    return startsStatement(this.text.charCodeAt(i));
  }

  #ref(id: LiteralASTNode): NodeRefASTNode {
    return { type: 'NodeRef', id, children: [], location: id.location };
  }

  /** `[key=value, …]`: pairs on one line each (the parser allows only spaces around `=` and before `,` or `;`). */
  #attributeList(): AttributeASTNode[] | undefined {
    this.#at++;
    const out: AttributeASTNode[] = [];
    for (;;) {
      this.#skip(true);
      if (this.#code() === Char.CloseBracket) {
        this.#at++;
        return out;
      }
      const begin = this.#position();
      const key = this.#literal(false);
      if (!key) return undefined;
      this.#skip(false);
      if (this.#code() !== Char.Equals) return undefined;
      this.#at++;
      this.#skip(false);
      const value = this.#literal(false);
      if (!value) return undefined;
      this.#skip(false);
      const c = this.#code();
      if (c === Char.Comma || c === Char.Semicolon) this.#at++;
      out.push({ type: 'Attribute', key, value, children: [], location: this.#range(begin) } as AttributeASTNode);
    }
  }

  /**
   * A statement's end: an optional `;` on its line, then a line break, blanks and the next statement,
   * or the piece's end. After a `key = value` the next statement may follow on the same line too.
   */
  #endStatement(attribute: boolean): boolean {
    if (this.#code() === Char.Semicolon) {
      this.#at++;
      return true;
    }
    if (this.#at >= this.end || isLineBreak(this.#code())) return attribute || this.#restIsNewStatement();
    // Another statement on the same line (`a b`, `a [x=1] b`), after at least one blank.
    return isBlank(this.text.charCodeAt(this.#at - 1)) && startsStatement(this.#code());
  }

  /**
   * An unquoted word, numeral or quoted string at #at. Undefined for anything else, for tokens that
   * touch what follows, and — where a statement starts (`statementStart`) — for keywords.
   */
  #literal(statementStart: boolean): LiteralASTNode | undefined {
    const begin = this.#position();
    const c = this.#code();
    if (c === Char.Quote) return this.#quoted(begin);
    const from = this.#at;
    if (isLetter(c)) {
      while (this.#at < this.end && (isLetter(this.#code()) || isDigit(this.#code()))) this.#at++;
    } else if (!this.#numeral()) return undefined;
    if (this.#touchesNext()) return undefined;
    const value = this.text.slice(from, this.#at);
    if (statementStart && KEYWORD.test(value)) return undefined;
    return { type: 'Literal', value, quoted: false, children: [], location: this.#range(begin) };
  }

  /** `-?(.[0-9]+|[0-9]+(.[0-9]*)?)` */
  #numeral(): boolean {
    const from = this.#at;
    if (this.#code() === Char.Minus) this.#at++;
    let digits = 0;
    while (isDigit(this.#code())) {
      this.#at++;
      digits++;
    }
    if (this.#code() === Char.Dot) {
      this.#at++;
      while (isDigit(this.#code())) {
        this.#at++;
        digits++;
      }
    }
    if (digits === 0) this.#at = from;
    return digits > 0;
  }

  /** A quoted string: `\` escapes the next character; a raw line break (which the parser refuses) is left to the parser. */
  #quoted(begin: FileRange['start']): LiteralASTNode | undefined {
    this.#at++;
    for (; this.#at < this.end; this.#at++) {
      const c = this.#code();
      if (c === Char.Quote) {
        const value = this.text.slice(begin.offset - this.head + this.start + 1, this.#at);
        this.#at++;
        if (this.#touchesNext()) return undefined;
        return { type: 'Literal', value, quoted: true, children: [], location: this.#range(begin) };
      }
      if (c === Char.Backslash) {
        // The escaped character, whatever it is (prepareDot escapes raw line breaks so); lines are counted at line feeds only, as the parser counts them.
        if (++this.#at >= this.end) return undefined;
        if (this.#code() === Char.LineFeed) this.#newLine();
      } else if (isLineBreak(c) || c === 0x2028 || c === 0x2029) return undefined;
    }
    return undefined;
  }

  /** A token just read runs into the next one (`0x`, `a"b"`, `"a"b`, `a.b`): the parser may read them as one. */
  #touchesNext(): boolean {
    const c = this.#code();
    return continuesId(c) || c === Char.Quote;
  }

  /** `->` at #at. */
  #atArrow(): boolean {
    return this.#code() === Char.Minus && this.text.charCodeAt(this.#at + 1) === Char.Greater;
  }

  /** Skips blanks, and line breaks too where the parser's grammar allows them. */
  #skip(lineBreaks: boolean): void {
    for (; this.#at < this.end; this.#at++) {
      const c = this.#code();
      if (c === Char.LineFeed && lineBreaks) this.#newLine();
      else if (!isBlank(c) && !(lineBreaks && c === Char.CarriageReturn)) return;
    }
  }

  #newLine(): void {
    this.#line++;
    this.#lineFeed = this.#at;
  }

  #code(): number {
    return this.#at < this.end ? this.text.charCodeAt(this.#at) : Number.NaN;
  }

  /** Where #at stands in the parser's copy of the piece (`digraph{` + piece + `}`). */
  #position(): FileRange['start'] {
    const offset = this.#at - this.start + this.head;
    return { offset, line: this.#line, column: this.#line === 1 ? offset + 1 : this.#at - this.#lineFeed };
  }

  #range(start: FileRange['start']): FileRange {
    return { start, end: this.#position() };
  }
}
