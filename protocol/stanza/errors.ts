/**
 * Typed grammar violations. A parser throws StanzaParseError when a received element breaks
 * the XML Schema or a wire rule of the spec; a builder throws StanzaBuildError before it would
 * emit such an element. Both name the element (Clark notation), the attribute if any, and the
 * rule, so a conformance report can say exactly what is wrong.
 */

export type StanzaRule =
  /** The element has another local name than the parser expects. */
  | 'wrong-element'
  /** The element or a child is in another namespace than the schema requires. */
  | 'wrong-namespace'
  | 'missing-attribute'
  /** An enumerated or otherwise constrained attribute has a value outside its type. */
  | 'invalid-attribute'
  /** An attribute the schema does not declare. */
  | 'unexpected-attribute'
  | 'missing-child'
  | 'unexpected-child'
  /** Children of an xs:sequence appear out of order. */
  | 'child-order'
  /** A child that may occur at most once occurs again. */
  | 'duplicate-child'
  /** Non-whitespace character data in element-only or empty content. */
  | 'unexpected-text'
  | 'invalid-base64'
  /** Base64 decodes to a digest of the wrong size for the algorithm. */
  | 'invalid-hash-length'
  | 'invalid-datetime'
  | 'invalid-identifier'
  | 'invalid-version'
  | 'invalid-tool-name'
  | 'invalid-integer'
  /** A valid integer that this codec cannot represent as a safe JavaScript number. */
  | 'integer-out-of-range'
  | 'invalid-boolean'
  /** A fixed media-type attribute has another value. */
  | 'media-type'
  /** Text (JSON, reason, value) that XML 1.0 cannot carry; builders only. */
  | 'illegal-xml-character'
  /** XEP-0004: two fields with one var in one container. */
  | 'duplicate-field'
  /** XEP-0004: more than one value in a single-valued field, or an option outside list fields. */
  | 'field-type-mismatch'
  /** XEP-0030: two identities with one category/type/xml:lang but different names. */
  | 'duplicate-identity';

export interface StanzaViolation {
  /** The offending element in Clark notation, e.g. "{urn:xmpp:agent-task:0}invoke". */
  readonly element: string;
  readonly attribute?: string;
  readonly rule: StanzaRule;
  readonly detail: string;
}

function describe(kind: string, violation: StanzaViolation): string {
  const where = violation.attribute === undefined ? '' : ` attribute '${violation.attribute}'`;
  return `${kind} <${violation.element}>${where}: ${violation.rule}: ${violation.detail}`;
}

export class StanzaParseError extends Error implements StanzaViolation {
  override readonly name = 'StanzaParseError';
  readonly element: string;
  readonly attribute?: string;
  readonly rule: StanzaRule;
  readonly detail: string;
  constructor(violation: StanzaViolation, options?: ErrorOptions) {
    super(describe('invalid', violation), options);
    this.element = violation.element;
    if (violation.attribute !== undefined) this.attribute = violation.attribute;
    this.rule = violation.rule;
    this.detail = violation.detail;
  }
}

export class StanzaBuildError extends Error implements StanzaViolation {
  override readonly name = 'StanzaBuildError';
  readonly element: string;
  readonly attribute?: string;
  readonly rule: StanzaRule;
  readonly detail: string;
  constructor(violation: StanzaViolation, options?: ErrorOptions) {
    super(describe('cannot build', violation), options);
    this.element = violation.element;
    if (violation.attribute !== undefined) this.attribute = violation.attribute;
    this.rule = violation.rule;
    this.detail = violation.detail;
  }
}

/** A short, quoted rendering of an offending value: diagnostics stay bounded (#errors, #privacy). */
export function quoteValue(value: string, limit = 80): string {
  return JSON.stringify(value.length > limit ? `${value.slice(0, limit)}…` : value);
}
