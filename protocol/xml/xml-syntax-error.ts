/** The one error every XML reader here throws or reports, with the rule that was broken. */

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
  override readonly name: string = 'XmlSyntaxError';
  /** 1-based line and column (UTF-16 code units) of `offset` in the text read. */
  readonly line: number;
  readonly column: number;
  constructor(
    readonly rule: XmlSyntaxRule,
    /** Offset into the text read (for documents: after BOM removal and line-end normalization). */
    readonly offset: number,
    text: string,
    /** What was wrong, in words. */
    readonly detail: string,
  ) {
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    super(`XML not well-formed (${rule}) at ${line}:${column}: ${detail}`);
    this.line = line;
    this.column = column;
  }
}

/** Deepest element nesting accepted by default; the root is depth 1 (#security: bound nesting). */
export const DEFAULT_MAX_XML_DEPTH = 256;
