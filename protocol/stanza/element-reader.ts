/**
 * Parse-side helpers: each reads one structural or lexical rule from an Element and throws a
 * StanzaParseError naming the element, the attribute and the rule when it does not hold.
 */
import type { Element } from '@xmpp/xml';
import { StanzaParseError, quoteValue } from './errors.ts';
import type { StanzaRule } from './errors.ts';
import {
  attributeOf,
  characterDataOf,
  childElementsOf,
  clarkName,
  clarkNameOf,
  isElementNode,
  localNameOf,
  namespaceOf,
} from './element-access.ts';
import type { Lexical } from './lexical.ts';
import { lexEnum } from './lexical.ts';
import { isXmlWhitespace } from '../xml/xml-chars.ts';

export function parseFailure(
  element: Element,
  rule: StanzaRule,
  detail: string,
  attribute?: string,
): StanzaParseError {
  return new StanzaParseError({
    element: clarkNameOf(element),
    rule,
    detail,
    ...(attribute === undefined ? {} : { attribute }),
  });
}

/** The element must be {ns}local. */
export function expectElement(element: Element, local: string, ns: string | undefined): void {
  const actualNs = namespaceOf(element);
  if (localNameOf(element) !== local) {
    throw parseFailure(element, 'wrong-element', `expected <${clarkName(local, ns)}>`);
  }
  if (actualNs !== ns) {
    throw parseFailure(element, 'wrong-namespace', `expected namespace ${ns ?? '(none)'}`);
  }
}

function isNamespaceDeclaration(name: string): boolean {
  return name === 'xmlns' || name.startsWith('xmlns:');
}

/** Every attribute other than namespace declarations must be in `allowed` (the XSD declares no others). */
export function checkAttributes(element: Element, allowed: readonly string[]): void {
  for (const name of Object.keys(element.attrs)) {
    if (isNamespaceDeclaration(name) || allowed.includes(name)) continue;
    if (attributeOf(element, name) === undefined) continue;
    throw parseFailure(element, 'unexpected-attribute', `the schema declares no attribute ${name}`, name);
  }
}

export function requiredAttribute(element: Element, name: string): string {
  const value = attributeOf(element, name);
  if (value === undefined) {
    throw parseFailure(element, 'missing-attribute', `required attribute is absent`, name);
  }
  return value;
}

/** Unwraps a lexical result for this element (and attribute, when the value came from one). */
export function lexed<T>(element: Element, attribute: string | undefined, result: Lexical<T>): T {
  if (!result.ok) throw parseFailure(element, result.rule, result.detail, attribute);
  return result.value;
}

export function lexAttribute<T>(element: Element, name: string, lex: (text: string) => Lexical<T>): T {
  return lexed(element, name, lex(requiredAttribute(element, name)));
}

export function lexOptionalAttribute<T>(
  element: Element,
  name: string,
  lex: (text: string) => Lexical<T>,
): T | undefined {
  const value = attributeOf(element, name);
  return value === undefined ? undefined : lexed(element, name, lex(value));
}

/** Lexes the element's character data (the element must have simple content). */
export function lexContent<T>(element: Element, lex: (text: string) => Lexical<T>): T {
  return lexed(element, undefined, lex(simpleContent(element)));
}

export function enumAttribute<T extends string>(element: Element, name: string, values: readonly T[]): T {
  return lexAttribute(element, name, lexEnum(values));
}

/** A 'media-type' attribute the schema fixes (#json-encoding: required even with one permitted value). */
export function expectMediaType(element: Element, expected: string): void {
  const value = requiredAttribute(element, 'media-type');
  if (value !== expected) {
    throw parseFailure(element, 'media-type', `${quoteValue(value)} is not ${expected}`, 'media-type');
  }
}

/** XSD empty content: no child elements and no character data, not even whitespace. */
export function expectEmpty(element: Element): void {
  const [child] = element.children;
  if (child === undefined) return;
  if (isElementNode(child)) {
    throw parseFailure(element, 'unexpected-child', `empty content allows no <${clarkNameOf(child)}>`);
  }
  throw parseFailure(element, 'unexpected-text', 'empty content allows no character data');
}

/** Element-only content: child elements, with whitespace allowed between them. */
export function elementOnlyChildren(element: Element): Element[] {
  for (const child of element.children as unknown[]) {
    if (isElementNode(child) || (typeof child === 'string' && isXmlWhitespace(child))) continue;
    throw parseFailure(
      element,
      'unexpected-text',
      `character data ${quoteValue(String(child).trim())} in element-only content`,
    );
  }
  return childElementsOf(element);
}

/** Simple content: the concatenated character data; child elements are refused. */
export function simpleContent(element: Element): string {
  const [child] = childElementsOf(element);
  if (child !== undefined) {
    throw parseFailure(element, 'unexpected-child', `text-only content allows no <${clarkNameOf(child)}>`);
  }
  return characterDataOf(element);
}

export interface ChildSpec {
  readonly local: string;
  readonly ns: string | undefined;
  /** Defaults to 1. */
  readonly min?: 0 | 1;
  /** Defaults to 1. */
  readonly max?: number;
}

/**
 * Matches element-only content against an xs:sequence and returns the children per spec entry.
 * Reports the first missing, unexpected, repeated or out-of-order child.
 */
export function readSequence(parent: Element, specs: readonly ChildSpec[]): Element[][] {
  const children = elementOnlyChildren(parent);
  const groups: Element[][] = specs.map(() => []);
  const describeSpec = (spec: ChildSpec): string => `<${clarkName(spec.local, spec.ns)}>`;
  const specIndexOf = (child: Element): number =>
    specs.findIndex((spec) => spec.local === localNameOf(child) && spec.ns === namespaceOf(child));
  let cursor = 0;
  /** Every required entry before `upTo` is filled; one that appears later is out of order, not missing. */
  const requireSatisfied = (upTo: number, position: number): void => {
    for (let i = cursor; i < upTo; i++) {
      const spec = specs[i];
      if (spec === undefined || (groups[i]?.length ?? 0) >= (spec.min ?? 1)) continue;
      const current = children[position];
      if (current !== undefined && children.slice(position + 1).some((later) => specIndexOf(later) === i)) {
        throw parseFailure(
          parent,
          'child-order',
          `${describeSpec(spec)} must come before <${clarkNameOf(current)}>`,
        );
      }
      throw parseFailure(parent, 'missing-child', `${describeSpec(spec)} is required`);
    }
  };
  children.forEach((child, position) => {
    const index = specIndexOf(child);
    if (index === -1) {
      const sameName = specs.find((spec) => spec.local === localNameOf(child));
      if (sameName !== undefined) {
        throw parseFailure(
          child,
          'wrong-namespace',
          `expected ${describeSpec(sameName)} inside <${clarkNameOf(parent)}>`,
        );
      }
      throw parseFailure(parent, 'unexpected-child', `<${clarkNameOf(child)}> is not allowed here`);
    }
    const spec = specs[index];
    const group = groups[index];
    if (spec === undefined || group === undefined) return;
    if (index < cursor) {
      const previous = specs[cursor];
      throw parseFailure(
        parent,
        'child-order',
        `<${clarkNameOf(child)}> must come before ${previous === undefined ? 'its predecessor' : describeSpec(previous)}`,
      );
    }
    requireSatisfied(index, position);
    cursor = index;
    if (group.length >= (spec.max ?? 1)) {
      throw parseFailure(
        parent,
        'duplicate-child',
        `<${clarkNameOf(child)}> may occur at most ${spec.max ?? 1} time(s)`,
      );
    }
    group.push(child);
  });
  requireSatisfied(specs.length, children.length);
  return groups;
}

/** The single child a sequence entry with min 1, max 1 yields. */
export function only(group: readonly Element[] | undefined): Element {
  const [element] = group ?? [];
  if (element === undefined) throw new TypeError('readSequence guarantees one element here');
  return element;
}
