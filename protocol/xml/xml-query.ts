/** Small read-only queries over read-xml trees. */
import type { XmlDocument, XmlElement } from './read-xml.ts';

export function attributeValue(element: XmlElement, localName: string): string | undefined {
  return element.attributes.find(
    (attribute) => attribute.namespace === null && attribute.localName === localName,
  )?.value;
}

export function childElements(
  element: XmlElement,
  localName?: string,
  namespace?: string | null,
): XmlElement[] {
  return element.children.filter(
    (child): child is XmlElement =>
      child.kind === 'element' &&
      (localName === undefined || child.localName === localName) &&
      (namespace === undefined || child.namespace === namespace),
  );
}

export function firstChild(
  element: XmlElement,
  localName: string,
  namespace: string | null,
): XmlElement | undefined {
  return childElements(element, localName, namespace)[0];
}

/** The element and all its descendants, in document order. */
export function* walk(element: XmlElement): Generator<XmlElement> {
  yield element;
  for (const child of element.children) if (child.kind === 'element') yield* walk(child);
}

/**
 * Character content as #json-encoding defines it: entity-decoded text and CDATA of the direct
 * children, concatenated. JSON-bearing elements have simple content, so nothing is lost.
 */
export function textContent(element: XmlElement): string {
  return element.children.map((child) => (child.kind === 'text' ? child.value : '')).join('');
}

/**
 * The element's source text as a standalone document: namespace bindings it inherits are
 * declared on it (in its start tag, so line numbers inside it are unchanged).
 */
export function standaloneSource(document: XmlDocument, element: XmlElement): string {
  const inherited: string[] = [];
  for (const [prefix, uri] of element.scope) {
    if (prefix === 'xml' || uri === null || element.declaredPrefixes.includes(prefix)) continue;
    const escaped = uri.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/'/g, '&apos;');
    inherited.push(prefix === '' ? ` xmlns='${escaped}'` : ` xmlns:${prefix}='${escaped}'`);
  }
  const { source } = document;
  return (
    source.slice(element.start, element.nameEnd) +
    inherited.join('') +
    source.slice(element.nameEnd, element.end)
  );
}
