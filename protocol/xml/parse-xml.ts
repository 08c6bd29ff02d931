/**
 * A strict, non-validating XML 1.0 + Namespaces document parser that builds @xmpp/xml (ltx)
 * Elements, on the one reader (sax-core.ts).
 *
 * Why not ltx's own parser: it skips DOCTYPEs and comments silently, does no line-end or
 * attribute-value normalization, lets a bare '&' through, and checks no well-formedness
 * constraint. Cancellation replay identity depends on exactly the normalization XML parsing
 * performs (#cancellation, interp-38), and tool names must round-trip through attributes
 * (interp-22).
 *
 * XXE safety: any DOCTYPE is refused where it starts, so no DTD, internal subset or external
 * entity is ever read; only the five predefined entities and character references are expanded.
 * Comments and processing instructions are refused as RFC 6120 §11.1 restricts them; the XML
 * declaration must say version 1.0 and, if anything, UTF-8 (RFC 6120 §11.6).
 */
import type { Element } from '@xmpp/xml';

import { ElementBuilder } from './element-builder.ts';
import { SaxCore, type CoreEvent, type CoreFailure } from './sax-core.ts';
import { DEFAULT_MAX_XML_DEPTH, XmlSyntaxError } from './xml-syntax-error.ts';

export interface ParseXmlOptions {
  /** Deepest element nesting accepted; the root is depth 1 (#security: bound nesting). */
  readonly maxDepth?: number;
}

/** Parses one complete XML document (optionally with an XML declaration) into its root Element. */
export function parseXml(input: string, options: ParseXmlOptions = {}): Element {
  const withoutBom = input.startsWith('\uFEFF') ? input.slice(1) : input;
  // XML 1.0 §2.11, done before reading so that offsets (and so line and column) count LF only.
  const text = withoutBom.replace(/\r\n?/g, '\n');
  const core = new SaxCore({
    maxDepth: options.maxDepth ?? DEFAULT_MAX_XML_DEPTH,
    guard: { restricted: true },
  });
  const builder = new ElementBuilder();
  const refuse = (failure: CoreFailure): never => {
    throw new XmlSyntaxError(failure.rule, failure.offset, text, failure.detail);
  };
  let root: Element | undefined;
  for (const read of [() => core.write(text), () => core.end()]) {
    const { events, failure } = read();
    for (const event of events) {
      const refusal = strictRefusal(event);
      if (refusal !== undefined) refuse(refusal);
      if (event.kind === 'open') builder.open(event.tag);
      else if (event.kind === 'close') root = builder.close() ?? root;
      else if (event.kind === 'text' || event.kind === 'cdata') builder.text(event.value);
    }
    if (failure !== undefined) refuse(failure);
  }
  return root ?? refuse({ rule: 'no-root', offset: text.length, detail: 'the document has no root element' });
}

/** What RFC 6120 refuses that XML itself would allow. */
function strictRefusal(event: CoreEvent): CoreFailure | undefined {
  switch (event.kind) {
    case 'xml-declaration': {
      const { version, encoding } = event.declaration;
      if (version === '1.0' && (encoding === undefined || /^utf-8$/i.test(encoding))) return undefined;
      return {
        rule: 'xml-declaration',
        offset: 0,
        detail: 'the XML declaration is not version 1.0 with encoding UTF-8 (RFC 6120 §11.6)',
      };
    }
    case 'doctype':
      return {
        rule: 'doctype',
        offset: event.start,
        detail: 'document type declarations are refused (no DTD or external entity is read)',
      };
    case 'comment':
      return {
        rule: 'restricted-xml',
        offset: event.start,
        detail: 'comments are not allowed (RFC 6120 §11.1)',
      };
    case 'processing-instruction':
      return {
        rule: 'restricted-xml',
        offset: event.start,
        detail: 'processing instructions are not allowed (RFC 6120 §11.1)',
      };
    default:
      return undefined;
  }
}
