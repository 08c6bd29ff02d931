/**
 * A non-validating XML 1.0 + Namespaces reader that keeps source positions, for reading the
 * spec and its examples and pointing findings at spec lines.
 *
 * The spec cannot go through a conforming parser as is: its DOCTYPE pulls in xep.ent through
 * a parameter entity, and its prose uses entities declared there (&xep0030; …) that we do not
 * have. In `spec` mode the reader therefore skips the DOCTYPE (never reading any external
 * subset) and keeps undeclared entity references verbatim in text; every other
 * well-formedness rule still applies, and CDATA sections, which hold all the test material
 * and artifacts, are returned exactly. `strict` mode (for examples) refuses DTDs and undeclared
 * entities.
 *
 * Offsets index `XmlDocument.source`: the input after BOM removal and XML §2.11 line-end
 * normalization (CRLF and CR become LF), so substrings of it are themselves well-formed.
 */

export type XmlReadMode = 'strict' | 'spec';

export interface XmlAttribute {
  readonly name: string;
  readonly localName: string;
  readonly namespace: string | null;
  readonly value: string;
}

export interface XmlText {
  readonly kind: 'text';
  readonly value: string;
  readonly cdata: boolean;
  /** Offset of the first character of `value`'s source (inside `<![CDATA[` for sections). */
  readonly valueStart: number;
}

export interface XmlElement {
  readonly kind: 'element';
  readonly name: string;
  readonly localName: string;
  readonly namespace: string | null;
  readonly attributes: readonly XmlAttribute[];
  readonly children: readonly XmlNode[];
  readonly parent: XmlElement | null;
  /** Every namespace binding in scope ('' is the default namespace; null undeclares it). */
  readonly scope: ReadonlyMap<string, string | null>;
  /** Prefixes declared by this element's own xmlns attributes ('' for xmlns itself). */
  readonly declaredPrefixes: readonly string[];
  /** Offsets of '<' of the start tag and just past the end tag's (or empty tag's) '>'. */
  readonly start: number;
  readonly end: number;
  /** End of the start tag's name: where extra namespace declarations can be inserted. */
  readonly nameEnd: number;
}

export type XmlNode = XmlElement | XmlText;

export interface XmlDocument {
  readonly source: string;
  readonly root: XmlElement;
  /** 1-based line of an offset in `source`. */
  lineOf(offset: number): number;
}

export class XmlReadError extends Error {
  override readonly name = 'XmlReadError';
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} (line ${line}, column ${column})`);
  }
}

const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/';

// XML 1.0 (Fifth Edition) §2.3.
const NAME_START =
  ':A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_SOURCE = `[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*`;
// The combining-mark range U+0300–U+036F is a NameChar range by definition, not a typo.
// eslint-disable-next-line no-misleading-character-class
const NAME_AT = new RegExp(NAME_SOURCE, 'uy');
// eslint-disable-next-line no-misleading-character-class
const NAME_ONLY = new RegExp(`^${NAME_SOURCE}$`, 'u');
const REFERENCE_AT = /&(?:#x([0-9A-Fa-f]{1,6})|#([0-9]{1,7})|([^\s&;<>"']+))?(;?)/y;
const WHITESPACE_AT = /[ \t\n]*/y;
const ILLEGAL_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function readXml(input: string, mode: XmlReadMode = 'strict'): XmlDocument {
  const source = (input.startsWith('\uFEFF') ? input.slice(1) : input).replace(/\r\n?/g, '\n');
  const lineStarts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (offset: number): number => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((lineStarts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
  const root = new Reader(source, mode, (offset) => {
    const line = lineOf(offset);
    return { line, column: offset - (lineStarts[line - 1] ?? 0) + 1 };
  }).document();
  return { source, root, lineOf };
}

interface MutableElement extends XmlElement {
  readonly children: XmlNode[];
  end: number;
}

interface RawAttribute {
  readonly name: string;
  readonly value: string;
  readonly offset: number;
}

class Reader {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly mode: XmlReadMode,
    private readonly position: (offset: number) => { line: number; column: number },
  ) {}

  document(): XmlElement {
    const illegal = ILLEGAL_CHAR.exec(this.text);
    if (illegal !== null) this.fail('character not allowed in XML 1.0', illegal.index);
    if (/^<\?xml[ \t\n]/.test(this.text)) this.skipPast('?>', 'XML declaration');
    let sawDoctype = false;
    for (;;) {
      this.misc();
      if (!this.text.startsWith('<!DOCTYPE', this.pos)) break;
      if (this.mode === 'strict') this.fail('document type declarations are not allowed here', this.pos);
      if (sawDoctype) this.fail('second document type declaration', this.pos);
      sawDoctype = true;
      this.skipDoctype();
    }
    if (this.pos >= this.text.length || this.text[this.pos] !== '<') {
      this.fail('expected the root element', this.pos);
    }
    const root = this.elementTree();
    this.misc();
    if (this.pos < this.text.length) this.fail('content after the root element', this.pos);
    return root;
  }

  private fail(message: string, offset: number): never {
    const { line, column } = this.position(offset);
    throw new XmlReadError(message, line, column);
  }

  private skipWhitespace(): void {
    WHITESPACE_AT.lastIndex = this.pos;
    WHITESPACE_AT.exec(this.text);
    this.pos = WHITESPACE_AT.lastIndex;
  }

  private skipPast(terminator: string, what: string): number {
    const end = this.text.indexOf(terminator, this.pos);
    if (end === -1) this.fail(`unterminated ${what}`, this.pos);
    const contentEnd = end;
    this.pos = end + terminator.length;
    return contentEnd;
  }

  /** Comments, processing instructions and whitespace between top-level constructs. */
  private misc(): void {
    for (;;) {
      this.skipWhitespace();
      if (this.text.startsWith('<!--', this.pos)) this.comment();
      else if (this.text.startsWith('<?', this.pos)) this.processingInstruction();
      else return;
    }
  }

  private comment(): void {
    const start = this.pos;
    this.pos += 4;
    const end = this.skipPast('-->', 'comment');
    if (this.text.slice(start + 4, end).includes('--') || this.text[end - 1] === '-') {
      this.fail("'--' is not allowed inside a comment", start);
    }
  }

  private processingInstruction(): void {
    const start = this.pos;
    this.pos += 2;
    const target = this.name('a processing-instruction target');
    if (target.toLowerCase() === 'xml') this.fail('the XML declaration must come first', start);
    this.skipPast('?>', 'processing instruction');
  }

  /** Skips `<!DOCTYPE … [internal subset]>` without interpreting it: nothing is loaded. */
  private skipDoctype(): void {
    const start = this.pos;
    let inSubset = false;
    for (let i = this.pos + '<!DOCTYPE'.length; i < this.text.length; i++) {
      const c = this.text[i];
      if (c === '"' || c === "'") {
        const close = this.text.indexOf(c, i + 1);
        if (close === -1) break;
        i = close;
      } else if (inSubset && this.text.startsWith('<!--', i)) {
        const close = this.text.indexOf('-->', i + 4);
        if (close === -1) break;
        i = close + 2;
      } else if (c === '[' && !inSubset) inSubset = true;
      else if (c === ']' && inSubset) inSubset = false;
      else if (c === '>' && !inSubset) {
        this.pos = i + 1;
        return;
      }
    }
    this.fail('unterminated document type declaration', start);
  }

  private name(what: string): string {
    NAME_AT.lastIndex = this.pos;
    const match = NAME_AT.exec(this.text);
    if (match === null) this.fail(`expected ${what}`, this.pos);
    this.pos = NAME_AT.lastIndex;
    return match[0];
  }

  private elementTree(): XmlElement {
    const root = this.startTag(null, new Map<string, string | null>([['xml', XML_NAMESPACE]]));
    const stack: MutableElement[] = [];
    if (root.end === -1) stack.push(root);
    let text = '';
    let textStart = -1;
    const flush = (parent: MutableElement): void => {
      if (textStart !== -1)
        parent.children.push({ kind: 'text', value: text, cdata: false, valueStart: textStart });
      text = '';
      textStart = -1;
    };
    while (stack.length > 0) {
      const parent = stack[stack.length - 1];
      if (parent === undefined) break;
      if (this.pos >= this.text.length) this.fail(`<${parent.name}> is never closed`, parent.start);
      const c = this.text[this.pos];
      if (c !== '<') {
        if (textStart === -1) textStart = this.pos;
        text += this.characterData();
        continue;
      }
      flush(parent);
      if (this.text.startsWith('</', this.pos)) {
        this.endTag(parent);
        stack.pop();
      } else if (this.text.startsWith('<![CDATA[', this.pos)) {
        const valueStart = this.pos + '<![CDATA['.length;
        this.pos = valueStart;
        const end = this.skipPast(']]>', 'CDATA section');
        parent.children.push({
          kind: 'text',
          value: this.text.slice(valueStart, end),
          cdata: true,
          valueStart,
        });
      } else if (this.text.startsWith('<!--', this.pos)) this.comment();
      else if (this.text.startsWith('<?', this.pos)) this.processingInstruction();
      else if (this.text.startsWith('<!', this.pos)) this.fail("unexpected '<!'", this.pos);
      else {
        const child = this.startTag(parent, parent.scope);
        parent.children.push(child);
        if (child.end === -1) stack.push(child);
      }
    }
    return root;
  }

  /** Character data and references up to the next '<'. */
  private characterData(): string {
    const lt = this.text.indexOf('<', this.pos);
    const end = lt === -1 ? this.text.length : lt;
    const raw = this.text.slice(this.pos, end);
    const cdataEnd = raw.indexOf(']]>');
    if (cdataEnd !== -1) this.fail("']]>' is not allowed in character data", this.pos + cdataEnd);
    const value = this.expandReferences(this.pos, end, false);
    this.pos = end;
    return value;
  }

  private expandReferences(from: number, to: number, attribute: boolean): string {
    let value = '';
    let pos = from;
    while (pos < to) {
      const amp = this.text.indexOf('&', pos);
      const literalEnd = amp === -1 || amp >= to ? to : amp;
      const literal = this.text.slice(pos, literalEnd);
      // XML 1.0 §3.3.3: literal whitespace in an attribute value becomes a space.
      value += attribute ? literal.replace(/[\t\n]/g, ' ') : literal;
      pos = literalEnd;
      if (pos < to) {
        const { expansion, length } = this.reference(pos);
        value += expansion;
        pos += length;
      }
    }
    return value;
  }

  private reference(offset: number): { expansion: string; length: number } {
    REFERENCE_AT.lastIndex = offset;
    const match = REFERENCE_AT.exec(this.text);
    const [whole, hex, decimal, entity, semicolon] = match ?? [''];
    if (semicolon !== ';' || whole.length < 3) this.fail("'&' must start a reference ending in ';'", offset);
    if (entity !== undefined) {
      if (!NAME_ONLY.test(entity)) this.fail(`malformed entity reference ${whole}`, offset);
      const expansion = PREDEFINED[entity];
      if (expansion !== undefined) return { expansion, length: whole.length };
      if (this.mode === 'spec') return { expansion: whole, length: whole.length };
      this.fail(`entity ${whole} is not declared`, offset);
    }
    const code = hex !== undefined ? parseInt(hex, 16) : parseInt(decimal ?? '', 10);
    const char = code <= 0x10ffff ? String.fromCodePoint(code) : '';
    if (char === '' || ILLEGAL_CHAR.test(char) || (code >= 0xd800 && code <= 0xdfff)) {
      this.fail(`${whole} does not reference an XML 1.0 character`, offset);
    }
    return { expansion: char, length: whole.length };
  }

  private startTag(
    parent: XmlElement | null,
    parentScope: ReadonlyMap<string, string | null>,
  ): MutableElement {
    const start = this.pos;
    this.pos += 1;
    const name = this.name('an element name');
    const nameEnd = this.pos;
    const raw: RawAttribute[] = [];
    let selfClosing = false;
    for (;;) {
      const before = this.pos;
      this.skipWhitespace();
      if (this.text.startsWith('/>', this.pos)) {
        this.pos += 2;
        selfClosing = true;
        break;
      }
      if (this.text[this.pos] === '>') {
        this.pos += 1;
        break;
      }
      if (this.pos >= this.text.length) this.fail(`start tag <${name}> is never closed`, start);
      if (this.pos === before) this.fail(`whitespace must separate attributes in <${name}>`, this.pos);
      raw.push(this.attribute());
    }
    const scope = this.declare(name, raw, parentScope);
    const declaredPrefixes = raw.flatMap(({ name: attribute }) =>
      attribute === 'xmlns' ? [''] : attribute.startsWith('xmlns:') ? [attribute.slice(6)] : [],
    );
    const element: MutableElement = {
      kind: 'element',
      name,
      ...this.expand(name, scope, start, true),
      attributes: this.attributes(name, raw, scope),
      children: [],
      parent,
      scope,
      declaredPrefixes,
      start,
      end: selfClosing ? this.pos : -1,
      nameEnd,
    };
    return element;
  }

  private attribute(): RawAttribute {
    const offset = this.pos;
    const name = this.name('an attribute name');
    this.skipWhitespace();
    if (this.text[this.pos] !== '=') this.fail(`expected '=' after ${name}`, this.pos);
    this.pos += 1;
    this.skipWhitespace();
    const quote = this.text[this.pos];
    if (quote !== '"' && quote !== "'") this.fail(`the value of ${name} must be quoted`, this.pos);
    const valueStart = this.pos + 1;
    const valueEnd = this.text.indexOf(quote, valueStart);
    if (valueEnd === -1) this.fail(`the value of ${name} is never closed`, offset);
    const lt = this.text.indexOf('<', valueStart);
    if (lt !== -1 && lt < valueEnd) this.fail(`'<' in the value of ${name}`, lt);
    const value = this.expandReferences(valueStart, valueEnd, true);
    this.pos = valueEnd + 1;
    return { name, value, offset };
  }

  private declare(
    element: string,
    raw: readonly RawAttribute[],
    parentScope: ReadonlyMap<string, string | null>,
  ): ReadonlyMap<string, string | null> {
    let scope: Map<string, string | null> | undefined;
    const seen = new Set<string>();
    for (const { name, value, offset } of raw) {
      if (seen.has(name)) this.fail(`attribute ${name} appears twice in <${element}>`, offset);
      seen.add(name);
      const prefix = name === 'xmlns' ? '' : name.startsWith('xmlns:') ? name.slice(6) : undefined;
      if (prefix === undefined) continue;
      if (
        prefix === 'xmlns' ||
        (prefix === 'xml') !== (value === XML_NAMESPACE) ||
        value === XMLNS_NAMESPACE
      ) {
        this.fail(`${name} binds a reserved prefix or namespace`, offset);
      }
      if (prefix !== '' && value === '') this.fail(`${name} must not be empty in XML 1.0`, offset);
      scope ??= new Map(parentScope);
      scope.set(prefix, value === '' ? null : value);
    }
    return scope ?? parentScope;
  }

  private expand(
    qname: string,
    scope: ReadonlyMap<string, string | null>,
    offset: number,
    isElement: boolean,
  ): { localName: string; namespace: string | null } {
    const colon = qname.indexOf(':');
    if (colon === -1) return { localName: qname, namespace: isElement ? (scope.get('') ?? null) : null };
    const prefix = qname.slice(0, colon);
    const localName = qname.slice(colon + 1);
    const namespace = scope.get(prefix);
    if (prefix === 'xmlns' || namespace === undefined || namespace === null || localName.includes(':')) {
      this.fail(`namespace prefix in ${qname} is not declared`, offset);
    }
    return { localName, namespace };
  }

  private attributes(
    element: string,
    raw: readonly RawAttribute[],
    scope: ReadonlyMap<string, string | null>,
  ): XmlAttribute[] {
    const expanded = new Set<string>();
    const attributes: XmlAttribute[] = [];
    for (const { name, value, offset } of raw) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      const { localName, namespace } = this.expand(name, scope, offset, false);
      const key = `{${namespace ?? ''}}${localName}`;
      if (expanded.has(key)) this.fail(`attribute ${key} appears twice in <${element}>`, offset);
      expanded.add(key);
      attributes.push({ name, localName, namespace, value });
    }
    return attributes;
  }

  private endTag(open: MutableElement): void {
    const offset = this.pos;
    this.pos += 2;
    const name = this.name('an end-tag name');
    this.skipWhitespace();
    if (this.text[this.pos] !== '>') this.fail(`end tag </${name}> is not closed by '>'`, this.pos);
    this.pos += 1;
    if (name !== open.name) this.fail(`</${name}> closes <${open.name}>`, offset);
    open.end = this.pos;
  }
}
