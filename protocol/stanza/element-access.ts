/**
 * Namespace-correct, prototype-safe reads of ltx Elements. ltx resolves an empty default
 * namespace declaration (xmlns='') to the parent's namespace and reads attributes through the
 * object prototype; every parser here uses these helpers instead.
 */
import { Element } from '@xmpp/xml';
import { XML_NAMESPACE } from '../xml/xml-chars.ts';

/** The attribute's value when the element itself carries it, else undefined. */
export function attributeOf(element: Element, name: string): string | undefined {
  if (!Object.hasOwn(element.attrs, name)) return undefined;
  const value: unknown = element.attrs[name];
  if (typeof value === 'string') return value;
  // ltx's attr() stores numbers as given; on the wire they are their decimal text.
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * True for an ltx Element. Duck-typed rather than instanceof: ltx ships a CommonJS and an ESM
 * copy of its Element class, and elements built with either must be read the same way.
 */
export function isElementNode(node: unknown): node is Element {
  if (typeof node !== 'object' || node === null) return false;
  const candidate = node as Partial<Element>;
  return (
    typeof candidate.name === 'string' &&
    Array.isArray(candidate.children) &&
    typeof candidate.attrs === 'object'
  );
}

export function localNameOf(element: Element): string {
  const colon = element.name.indexOf(':');
  return colon === -1 ? element.name : element.name.slice(colon + 1);
}

/** The element's namespace URI, following declarations up the parent chain; undefined for none. */
export function namespaceOf(element: Element): string | undefined {
  const colon = element.name.indexOf(':');
  const prefix = colon === -1 ? '' : element.name.slice(0, colon);
  if (prefix === 'xml') return XML_NAMESPACE;
  const declaration = prefix === '' ? 'xmlns' : `xmlns:${prefix}`;
  for (let scope: Element | null = element; scope !== null; scope = scope.parent) {
    const uri = attributeOf(scope, declaration);
    if (uri !== undefined) return uri === '' ? undefined : uri;
  }
  return undefined;
}

/** Clark notation, "{namespace}local", used to name elements in diagnostics. */
export function clarkNameOf(element: Element): string {
  const ns = namespaceOf(element);
  return ns === undefined ? localNameOf(element) : `{${ns}}${localNameOf(element)}`;
}

export function clarkName(local: string, ns: string | undefined): string {
  return ns === undefined ? local : `{${ns}}${local}`;
}

export function isElement(element: Element, local: string, ns: string | undefined): boolean {
  return localNameOf(element) === local && namespaceOf(element) === ns;
}

export function childElementsOf(element: Element): Element[] {
  return element.children.filter(isElementNode);
}

/** All character-data children concatenated: entity decoding is the parser's, boundaries are irrelevant. */
export function characterDataOf(element: Element): string {
  let text = '';
  for (const child of element.children as unknown[]) {
    // ltx keeps numbers passed as children (xml('max', {}, 10)); they are character data too.
    if (typeof child === 'string' || typeof child === 'number') text += String(child);
  }
  return text;
}

/** The direct children with this name and namespace. */
export function childrenNamed(element: Element, local: string, ns: string | undefined): Element[] {
  return childElementsOf(element).filter((child) => isElement(child, local, ns));
}

/** Sets an attribute as an own property, so that even "__proto__" stays an attribute. */
export function setAttribute(element: Element, name: string, value: string): void {
  Object.defineProperty(element.attrs, name, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A deep copy without a parent. The copy declares the namespace its name resolved to when the
 * declaration lived on an ancestor, so it means the same thing wherever it is inserted.
 */
export function detachedCopyOf(element: Element): Element {
  const copy = copyTree(element);
  const colon = element.name.indexOf(':');
  const declaration = colon === -1 ? 'xmlns' : `xmlns:${element.name.slice(0, colon)}`;
  const ns = namespaceOf(element);
  if (ns !== undefined && attributeOf(element, declaration) === undefined && declaration !== 'xmlns:xml') {
    setAttribute(copy, declaration, ns);
  }
  return copy;
}

function copyTree(element: Element): Element {
  const copy = new Element(element.name);
  for (const [name, value] of Object.entries(element.attrs)) {
    if (value !== undefined) setAttribute(copy, name, value);
  }
  for (const child of element.children) copy.cnode(isElementNode(child) ? copyTree(child) : child);
  return copy;
}
