/**
 * Finds the root element's namespace without a full parse, so a batch can be routed to the
 * right schema (or answered 'unknown-namespace') before xmllint runs. Only the prolog and the
 * root start tag are read; well-formedness of the rest is libxml2's job.
 */
import { NS_AGENT_API, NS_AGENT_TASK } from '../namespaces.ts';
import type { XsdError, XsdFailure, XsdSchemaId } from './xsd-result.ts';

// XML 1.0 (Fifth Edition) §2.3 NameStartChar / NameChar, as sticky regexes.
const NAME_START =
  ':A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
// The combining-mark range U+0300–U+036F is a NameChar range by definition, not a typo.
// eslint-disable-next-line no-misleading-character-class
const NAME = new RegExp(`[${NAME_START}][${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040]*`, 'uy');
const WHITESPACE = /[ \t\r\n]*/y;

export type RootScan =
  | { readonly ok: true; readonly namespace: string | null; readonly localName: string }
  | { readonly ok: false; readonly failure: XsdFailure; readonly error: XsdError };

/** Which normative schema governs a namespace, if any. */
export function schemaForNamespace(namespace: string | null): XsdSchemaId | undefined {
  if (namespace === NS_AGENT_API) return 'agent-api';
  if (namespace === NS_AGENT_TASK) return 'agent-task';
  return undefined;
}

export function scanRootElement(xml: string): RootScan {
  const scanner = new RootScanner(xml);
  try {
    return scanner.scan();
  } catch (error) {
    if (error instanceof RootScanError) {
      return { ok: false, failure: error.failure, error: { line: error.line, message: error.message } };
    }
    throw error;
  }
}

class RootScanError extends Error {
  constructor(
    readonly failure: XsdFailure,
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

class RootScanner {
  private pos = 0;

  constructor(private readonly text: string) {}

  scan(): RootScan {
    if (this.text.startsWith('\uFEFF')) this.pos = 1;
    for (;;) {
      this.skipWhitespace();
      if (this.pos >= this.text.length) this.fail('not-well-formed', 'no root element');
      if (this.text.startsWith('<?', this.pos)) this.skipPast('?>', 'processing instruction');
      else if (this.text.startsWith('<!--', this.pos)) this.skipPast('-->', 'comment');
      else if (this.text.startsWith('<!DOCTYPE', this.pos)) {
        // Restricted XML (RFC 6120 §11.1): stanzas never carry a DTD, and refusing it here
        // keeps entity expansion out of the validator.
        this.fail('invalid', 'document type declarations are not allowed in XMPP (RFC 6120 §11.1)');
      } else if (this.text.startsWith('<', this.pos)) return this.rootStartTag();
      else this.fail('not-well-formed', 'content before the root element');
    }
  }

  private rootStartTag(): RootScan {
    this.pos += 1;
    const qname = this.name('element name');
    const declarations = new Map<string, string>();
    for (;;) {
      const before = this.pos;
      this.skipWhitespace();
      if (this.text.startsWith('>', this.pos) || this.text.startsWith('/>', this.pos)) break;
      if (this.pos === before) this.fail('not-well-formed', `malformed start tag <${qname}>`);
      const attribute = this.name('attribute name');
      this.skipWhitespace();
      if (this.text[this.pos] !== '=') this.fail('not-well-formed', `attribute ${attribute} has no value`);
      this.pos += 1;
      this.skipWhitespace();
      const value = this.quoted(attribute);
      if (attribute === 'xmlns') declarations.set('', value);
      else if (attribute.startsWith('xmlns:')) declarations.set(attribute.slice('xmlns:'.length), value);
    }
    const colon = qname.indexOf(':');
    const prefix = colon === -1 ? '' : qname.slice(0, colon);
    const localName = colon === -1 ? qname : qname.slice(colon + 1);
    const declared = declarations.get(prefix);
    if (prefix !== '' && declared === undefined) {
      this.fail('not-well-formed', `namespace prefix ${prefix} is not declared`);
    }
    const namespace = declared === undefined || declared === '' ? null : declared;
    return { ok: true, namespace, localName };
  }

  private name(what: string): string {
    NAME.lastIndex = this.pos;
    const match = NAME.exec(this.text);
    if (match === null) this.fail('not-well-formed', `expected an ${what}`);
    this.pos = NAME.lastIndex;
    return match[0];
  }

  private quoted(attribute: string): string {
    const quote = this.text[this.pos];
    if (quote !== '"' && quote !== "'") this.fail('not-well-formed', `attribute ${attribute} is not quoted`);
    const end = this.text.indexOf(quote, this.pos + 1);
    if (end === -1) this.fail('not-well-formed', `attribute ${attribute} is not terminated`);
    const raw = this.text.slice(this.pos + 1, end);
    this.pos = end + 1;
    return decodePredefinedReferences(raw);
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.pos;
    WHITESPACE.exec(this.text);
    this.pos = WHITESPACE.lastIndex;
  }

  private skipPast(terminator: string, what: string): void {
    const end = this.text.indexOf(terminator, this.pos);
    if (end === -1) this.fail('not-well-formed', `unterminated ${what}`);
    this.pos = end + terminator.length;
  }

  private fail(failure: XsdFailure, message: string): never {
    const line = this.text.slice(0, this.pos).split('\n').length;
    throw new RootScanError(failure, message, line);
  }
}

const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Namespace names may be spelled with references; anything odd is left for libxml2 to reject. */
function decodePredefinedReferences(raw: string): string {
  return raw.replace(/&(#x[0-9A-Fa-f]+|#[0-9]+|[a-z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return safeCodePoint(parseInt(ref.slice(2), 16), whole);
    if (ref.startsWith('#')) return safeCodePoint(parseInt(ref.slice(1), 10), whole);
    return PREDEFINED[ref] ?? whole;
  });
}

function safeCodePoint(code: number, fallback: string): string {
  return code <= 0x10ffff ? String.fromCodePoint(code) : fallback;
}
