/**
 * A non-validating XML 1.0 + Namespaces document reader that keeps source positions, for
 * reading the spec and its examples and pointing findings at spec lines; on the one reader
 * (sax-core.ts).
 *
 * The spec cannot go through a conforming parser as is: its DOCTYPE pulls in xep.ent through a
 * parameter entity, and its prose uses entities declared there (&xep0030; …) that we do not
 * have. In `spec` mode the DOCTYPE is therefore passed over (saxes never reads an external
 * subset) and undeclared entity references stay verbatim in text; every other well-formedness
 * rule still applies, and CDATA sections, which hold all the test material and artifacts, are
 * returned exactly. `strict` mode (for examples) refuses DTDs and undeclared entities. Comments
 * and processing instructions are read and dropped in both.
 *
 * Offsets index `XmlDocument.source`: the input after BOM removal and XML §2.11 line-end
 * normalization (CRLF and CR become LF), so substrings of it are themselves well-formed.
 */
import type { SaxesTagNS } from 'saxes';

import { SaxCore, type CoreFailure } from './sax-core.ts';
import { XML_NAMESPACE } from './xml-chars.ts';
import { XmlSyntaxError } from './xml-syntax-error.ts';

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

interface MutableElement extends XmlElement {
  readonly children: XmlNode[];
  end: number;
}

const ROOT_SCOPE: ReadonlyMap<string, string | null> = new Map([['xml', XML_NAMESPACE]]);

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
  return { source, root: readTree(source, mode), lineOf };
}

function readTree(source: string, mode: XmlReadMode): XmlElement {
  const core = new SaxCore({
    maxDepth: Infinity,
    guard: { restricted: false },
    keepUndefinedEntities: mode === 'spec',
  });
  const refuse = (failure: CoreFailure): never => {
    throw new XmlSyntaxError(failure.rule, failure.offset, source, failure.detail);
  };
  const stack: MutableElement[] = [];
  let root: XmlElement | undefined;
  for (const read of [() => core.write(source), () => core.end()]) {
    const { events, failure } = read();
    for (const event of events) {
      const parent = stack.at(-1);
      switch (event.kind) {
        case 'doctype':
          if (mode === 'strict') {
            refuse({
              rule: 'doctype',
              offset: event.start,
              detail: 'document type declarations are not allowed here',
            });
          }
          break;
        case 'open': {
          const element = elementOf(event.tag, parent ?? null, event);
          parent?.children.push(element);
          stack.push(element);
          break;
        }
        case 'close': {
          const element = stack.pop();
          if (element !== undefined) element.end = event.end;
          if (stack.length === 0) root = element;
          break;
        }
        case 'text':
        case 'cdata':
          parent?.children.push({
            kind: 'text',
            value: event.value,
            cdata: event.kind === 'cdata',
            valueStart: event.start,
          });
          break;
        default:
          break;
      }
    }
    if (failure !== undefined) refuse(failure);
  }
  return root ?? refuse({ rule: 'no-root', offset: source.length, detail: 'expected the root element' });
}

function elementOf(
  tag: SaxesTagNS,
  parent: XmlElement | null,
  at: { readonly start: number; readonly nameEnd: number },
): MutableElement {
  const declared = Object.entries(tag.ns);
  let scope = parent?.scope ?? ROOT_SCOPE;
  if (declared.length > 0) {
    const own = new Map(scope);
    for (const [prefix, uri] of declared) own.set(prefix, uri === '' ? null : uri);
    scope = own;
  }
  const attributes = Object.values(tag.attributes);
  return {
    kind: 'element',
    name: tag.name,
    localName: tag.local,
    namespace: tag.uri === '' ? null : tag.uri,
    attributes: attributes
      .filter(({ name }) => name !== 'xmlns' && !name.startsWith('xmlns:'))
      .map(({ name, local, uri, value }) => ({
        name,
        localName: local,
        namespace: uri === '' ? null : uri,
        value,
      })),
    children: [],
    parent,
    scope,
    declaredPrefixes: attributes.flatMap(({ name }) =>
      name === 'xmlns' ? [''] : name.startsWith('xmlns:') ? [name.slice(6)] : [],
    ),
    start: at.start,
    end: -1,
    nameEnd: at.nameEnd,
  };
}
