/**
 * A strict, non-validating XML 1.0 + Namespaces parser that builds @xmpp/xml (ltx) Elements.
 *
 * Why not ltx's own parser: it skips DOCTYPEs and comments silently, does no line-end or
 * attribute-value normalization, lets a bare '&' through, and checks no well-formedness
 * constraint. Cancellation replay identity depends on exactly the normalization XML parsing
 * performs (#cancellation, interp-38), and tool names must round-trip through
 * attributes (interp-22), so this parser does both as the XML spec says.
 *
 * XXE safety: any DOCTYPE is refused outright, so no DTD, internal subset or external entity is
 * ever read; only the five predefined entities and character references are expanded.
 * Comments and processing instructions are refused as RFC 6120 §11.1 restricts them.
 *
 * Text model: character data and references between markup form one text child; each CDATA
 * section becomes a separate text child. Consumers therefore must concatenate (#json-encoding).
 */
import { Element } from '@xmpp/xml';
import { setAttribute } from './element-access.ts';
import {
  QNAME_SOURCE,
  XML_NAMESPACE,
  XMLNS_NAMESPACE,
  describeCharAt,
  firstIllegalXmlChar,
  isXmlCharCodePoint,
} from './xml-chars.ts';

export type XmlSyntaxRule =
  | 'illegal-character'
  | 'doctype'
  | 'restricted-xml'
  | 'xml-declaration'
  | 'no-root'
  | 'trailing-content'
  | 'malformed-tag'
  | 'malformed-attribute'
  | 'duplicate-attribute'
  | 'mismatched-end-tag'
  | 'unclosed-element'
  | 'unterminated-cdata'
  | 'invalid-reference'
  | 'undefined-entity'
  | 'cdata-end-in-text'
  | 'namespace'
  | 'too-deep';

export class XmlSyntaxError extends Error {
  override readonly name = 'XmlSyntaxError';
  /** 1-based line and column (UTF-16 code units) after line-end normalization. */
  readonly line: number;
  readonly column: number;
  constructor(
    readonly rule: XmlSyntaxRule,
    /** Offset into the input after BOM removal and line-end normalization. */
    readonly offset: number,
    text: string,
    detail: string,
  ) {
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    super(`XML not well-formed (${rule}) at ${line}:${column}: ${detail}`);
    this.line = line;
    this.column = column;
  }
}

export interface ParseXmlOptions {
  /** Deepest element nesting accepted; the root is depth 1 (#security: bound nesting). */
  readonly maxDepth?: number;
}

export const DEFAULT_MAX_XML_DEPTH = 256;

const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = {
  lt: '<',
  gt: '>',
  amp: '&',
  apos: "'",
  quot: '"',
};

const QNAME_AT = new RegExp(QNAME_SOURCE, 'uy');
const REFERENCE_AT = new RegExp(`&(?:#x([0-9A-Fa-f]+)|#([0-9]+)|(${QNAME_SOURCE}))?;?`, 'uy');
const XML_DECLARATION_AT =
  /<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(?:'1\.0'|"1\.0")(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(?:'[Uu][Tt][Ff]-8'|"[Uu][Tt][Ff]-8"))?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(?:'(?:yes|no)'|"(?:yes|no)"))?[ \t\n]*\?>/y;
const WHITESPACE_AT = /[ \t\n]*/y;
const MARKUP_OR_REFERENCE = /[<&]/g;

type Scope = ReadonlyMap<string, string>;

interface OpenElement {
  readonly element: Element;
  readonly scope: Scope;
  /** Offset of the start tag, for unclosed-element diagnostics. */
  readonly offset: number;
}

interface RawAttribute {
  readonly name: string;
  readonly value: string;
  readonly offset: number;
}

/** Parses one complete XML document (optionally with an XML declaration) into its root Element. */
export function parseXml(input: string, options: ParseXmlOptions = {}): Element {
  const withoutBom = input.startsWith('\uFEFF') ? input.slice(1) : input;
  // XML 1.0 §2.11: CRLF and lone CR become LF before any other processing.
  const text = withoutBom.replace(/\r\n?/g, '\n');
  return new DocumentParser(text, options.maxDepth ?? DEFAULT_MAX_XML_DEPTH).parse();
}

class DocumentParser {
  private pos = 0;
  private pendingText = '';

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  parse(): Element {
    const illegal = firstIllegalXmlChar(this.text);
    if (illegal !== -1) {
      this.fail(
        'illegal-character',
        illegal,
        `${describeCharAt(this.text, illegal)} is not an XML 1.0 character`,
      );
    }
    if (/^<\?xml[ \t\n?]/.test(this.text)) this.xmlDeclaration();
    this.misc();
    if (this.pos >= this.text.length) this.fail('no-root', this.pos, 'the document has no root element');
    if (this.text[this.pos] !== '<') this.fail('no-root', this.pos, 'character data before the root element');
    const root = this.elementTree();
    this.misc();
    if (this.pos < this.text.length) {
      this.fail('trailing-content', this.pos, 'only whitespace may follow the root element');
    }
    return root;
  }

  private fail(rule: XmlSyntaxRule, offset: number, detail: string): never {
    throw new XmlSyntaxError(rule, offset, this.text, detail);
  }

  private xmlDeclaration(): void {
    XML_DECLARATION_AT.lastIndex = 0;
    if (!XML_DECLARATION_AT.test(this.text)) {
      this.fail(
        'xml-declaration',
        0,
        'the XML declaration is malformed or not version 1.0 with encoding UTF-8 (RFC 6120 §11.6)',
      );
    }
    this.pos = XML_DECLARATION_AT.lastIndex;
  }

  private skipWhitespace(): number {
    WHITESPACE_AT.lastIndex = this.pos;
    WHITESPACE_AT.test(this.text);
    const skipped = WHITESPACE_AT.lastIndex - this.pos;
    this.pos = WHITESPACE_AT.lastIndex;
    return skipped;
  }

  /** Whitespace outside the root; comments, PIs and DOCTYPEs are refused. */
  private misc(): void {
    this.skipWhitespace();
    this.refuseMarkupDeclarations();
  }

  private refuseMarkupDeclarations(): void {
    const rest = this.text.slice(this.pos, this.pos + 9);
    if (rest.startsWith('<!--')) {
      this.fail('restricted-xml', this.pos, 'comments are not allowed (RFC 6120 §11.1)');
    }
    if (rest.startsWith('<?')) {
      this.fail('restricted-xml', this.pos, 'processing instructions are not allowed (RFC 6120 §11.1)');
    }
    if (rest.startsWith('<!DOCTYPE')) {
      this.fail(
        'doctype',
        this.pos,
        'document type declarations are refused (no DTD or external entity is read)',
      );
    }
  }

  private name(rule: XmlSyntaxRule, what: string): string {
    QNAME_AT.lastIndex = this.pos;
    const match = QNAME_AT.exec(this.text);
    if (match === null) this.fail(rule, this.pos, `expected ${what}`);
    this.pos = QNAME_AT.lastIndex;
    return match[0];
  }

  private elementTree(): Element {
    const stack: OpenElement[] = [];
    let root: Element | undefined;
    const rootScope: Scope = new Map([['xml', XML_NAMESPACE]]);
    for (;;) {
      const parent = stack.at(-1);
      if (parent === undefined) {
        if (root !== undefined) return root;
        const opened = this.startTag(rootScope, 1);
        root = opened.element;
        if (opened.selfClosing) return root;
        stack.push(opened);
        continue;
      }
      this.characterData();
      if (this.pos >= this.text.length) {
        this.fail('unclosed-element', parent.offset, `<${parent.element.name}> is never closed`);
      }
      if (this.text.startsWith('</', this.pos)) {
        this.flushText(parent.element);
        this.endTag(parent);
        stack.pop();
      } else if (this.text.startsWith('<![CDATA[', this.pos)) {
        this.flushText(parent.element);
        this.cdataSection(parent.element);
      } else {
        this.refuseMarkupDeclarations();
        if (this.text.startsWith('<!', this.pos)) this.fail('malformed-tag', this.pos, "unexpected '<!'");
        this.flushText(parent.element);
        const opened = this.startTag(parent.scope, stack.length + 1);
        parent.element.cnode(opened.element);
        if (!opened.selfClosing) stack.push(opened);
      }
    }
  }

  /** Character data and references up to the next '<' (or the end of input). */
  private characterData(): void {
    const { text } = this;
    while (this.pos < text.length) {
      // One scan for either delimiter keeps parsing linear however far away the other one is.
      MARKUP_OR_REFERENCE.lastIndex = this.pos;
      const next = MARKUP_OR_REFERENCE.exec(text)?.index ?? text.length;
      const literal = text.slice(this.pos, next);
      const cdataEnd = literal.indexOf(']]>');
      if (cdataEnd !== -1) {
        this.fail('cdata-end-in-text', this.pos + cdataEnd, "']]>' is not allowed in character data");
      }
      this.pendingText += literal;
      this.pos = next;
      if (text[next] !== '&') return;
      this.pendingText += this.reference();
    }
  }

  private flushText(element: Element): void {
    if (this.pendingText !== '') element.t(this.pendingText);
    this.pendingText = '';
  }

  private cdataSection(element: Element): void {
    const start = this.pos + '<![CDATA['.length;
    const end = this.text.indexOf(']]>', start);
    if (end === -1) this.fail('unterminated-cdata', this.pos, 'CDATA section is never closed');
    const content = this.text.slice(start, end);
    if (content !== '') element.t(content);
    this.pos = end + 3;
  }

  /** Expands the reference at `pos` (which is '&'); advances past it. */
  private reference(): string {
    const offset = this.pos;
    REFERENCE_AT.lastIndex = offset;
    const match = REFERENCE_AT.exec(this.text);
    const [whole, hex, decimal, entity] = match ?? [''];
    if (!whole.endsWith(';') || whole.length < 3) {
      this.fail('invalid-reference', offset, "'&' must start a character or entity reference ending in ';'");
    }
    this.pos = offset + whole.length;
    if (entity !== undefined) {
      const expansion = PREDEFINED_ENTITIES[entity];
      if (expansion === undefined) {
        this.fail('undefined-entity', offset, `entity &${entity}; is not declared (no DTD is read)`);
      }
      return expansion;
    }
    const digits = hex ?? decimal ?? '';
    const point = digits.length > 8 ? -1 : Number.parseInt(digits, hex === undefined ? 10 : 16);
    if (!isXmlCharCodePoint(point)) {
      this.fail('invalid-reference', offset, `${whole} does not reference an XML 1.0 character`);
    }
    return String.fromCodePoint(point);
  }

  private startTag(parentScope: Scope, depth: number): OpenElement & { readonly selfClosing: boolean } {
    const offset = this.pos;
    if (depth > this.maxDepth) this.fail('too-deep', offset, `elements nest deeper than ${this.maxDepth}`);
    this.pos += 1;
    const name = this.name('malformed-tag', 'an element name');
    const attributes: RawAttribute[] = [];
    let selfClosing = false;
    for (;;) {
      const spaced = this.skipWhitespace() > 0;
      if (this.text.startsWith('/>', this.pos)) {
        selfClosing = true;
        this.pos += 2;
        break;
      }
      if (this.text[this.pos] === '>') {
        this.pos += 1;
        break;
      }
      if (this.pos >= this.text.length) {
        this.fail('malformed-tag', offset, `start tag <${name}> is never closed`);
      }
      if (!spaced) this.fail('malformed-tag', this.pos, `whitespace must separate attributes in <${name}>`);
      attributes.push(this.attribute(name));
    }
    const scope = this.declareNamespaces(name, attributes, parentScope);
    const element = new Element(name);
    for (const { name: attributeName, value } of attributes) setAttribute(element, attributeName, value);
    return { element, scope, offset, selfClosing };
  }

  private attribute(elementName: string): RawAttribute {
    const offset = this.pos;
    const name = this.name('malformed-attribute', `an attribute name in <${elementName}>`);
    this.skipWhitespace();
    if (this.text[this.pos] !== '=') this.fail('malformed-attribute', this.pos, `expected '=' after ${name}`);
    this.pos += 1;
    this.skipWhitespace();
    const quote = this.text[this.pos];
    if (quote !== '"' && quote !== "'") {
      this.fail('malformed-attribute', this.pos, `the value of ${name} must be quoted`);
    }
    const valueStart = this.pos + 1;
    const valueEnd = this.text.indexOf(quote, valueStart);
    if (valueEnd === -1) this.fail('malformed-attribute', offset, `the value of ${name} is never closed`);
    const raw = this.text.slice(valueStart, valueEnd);
    const lt = raw.indexOf('<');
    if (lt !== -1) this.fail('malformed-attribute', valueStart + lt, `'<' in the value of ${name}`);
    let value = '';
    let cursor = 0;
    while (cursor < raw.length) {
      const amp = raw.indexOf('&', cursor);
      const literalEnd = amp === -1 ? raw.length : amp;
      // XML 1.0 §3.3.3: each literal whitespace character becomes a space; references do not.
      value += raw.slice(cursor, literalEnd).replace(/[\t\n]/g, ' ');
      if (literalEnd === raw.length) break;
      this.pos = valueStart + literalEnd;
      value += this.reference();
      cursor = this.pos - valueStart;
    }
    this.pos = valueEnd + 1;
    return { name, value, offset };
  }

  /** Namespaces in XML 1.0: declarations, reserved prefixes, bound prefixes, unique expanded names. */
  private declareNamespaces(elementName: string, attributes: readonly RawAttribute[], parent: Scope): Scope {
    let scope: Map<string, string> | undefined;
    const seen = new Set<string>();
    for (const { name, value, offset } of attributes) {
      if (seen.has(name)) {
        this.fail('duplicate-attribute', offset, `attribute ${name} appears twice in <${elementName}>`);
      }
      seen.add(name);
      let prefix: string | undefined;
      if (name === 'xmlns') prefix = '';
      else if (name.startsWith('xmlns:')) prefix = name.slice(6);
      if (prefix === undefined) continue;
      if (prefix === 'xmlns') this.fail('namespace', offset, 'the xmlns prefix must not be declared');
      if (prefix === 'xml' ? value !== XML_NAMESPACE : value === XML_NAMESPACE || value === XMLNS_NAMESPACE) {
        this.fail('namespace', offset, `${name} binds a reserved namespace or prefix`);
      }
      if (prefix !== '' && value === '') {
        this.fail('namespace', offset, `${name} must not be empty in XML 1.0`);
      }
      scope ??= new Map(parent);
      scope.set(prefix, value);
    }
    const effective: Scope = scope ?? parent;
    const prefixOf = (qname: string): string | undefined => {
      const colon = qname.indexOf(':');
      return colon === -1 ? undefined : qname.slice(0, colon);
    };
    const resolve = (prefix: string, offset: number): string => {
      const uri = effective.get(prefix);
      if (uri === undefined) this.fail('namespace', offset, `namespace prefix ${prefix} is not declared`);
      return uri;
    };
    const elementPrefix = prefixOf(elementName);
    if (elementPrefix === 'xmlns') this.fail('namespace', this.pos, 'elements must not use the xmlns prefix');
    if (elementPrefix !== undefined) resolve(elementPrefix, this.pos);
    const expanded = new Set<string>();
    for (const { name, offset } of attributes) {
      const prefix = prefixOf(name);
      if (prefix === undefined || prefix === 'xmlns') continue;
      const key = `{${resolve(prefix, offset)}}${name.slice(prefix.length + 1)}`;
      if (expanded.has(key)) {
        this.fail('duplicate-attribute', offset, `attribute ${key} appears twice in <${elementName}>`);
      }
      expanded.add(key);
    }
    return effective;
  }

  private endTag(open: OpenElement): void {
    const offset = this.pos;
    this.pos += 2;
    const name = this.name('malformed-tag', 'an end-tag name');
    this.skipWhitespace();
    if (this.text[this.pos] !== '>') {
      this.fail('malformed-tag', this.pos, `end tag </${name}> is not closed by '>'`);
    }
    this.pos += 1;
    if (name !== open.element.name) {
      this.fail('mismatched-end-tag', offset, `</${name}> closes <${open.element.name}>`);
    }
  }
}
