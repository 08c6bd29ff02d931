/**
 * XEP-0059 Result Set Management <set xmlns='http://jabber.org/protocol/rsm'>. Requests and
 * responses use different children, so each side has its own parser that refuses the other
 * side's elements. Child order is not enforced: the XEP's schema lists children alphabetically
 * while its own examples put <max/> first.
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { compact } from './compact.ts';
import { NS } from '../namespaces.ts';
import { clarkNameOf, localNameOf, namespaceOf } from './element-access.ts';
import {
  checkAttributes,
  elementOnlyChildren,
  expectElement,
  lexContent,
  lexOptionalAttribute,
  parseFailure,
  simpleContent,
} from './element-reader.ts';
import { buildFailure, integerText, legalText } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { XS_INT_MAX, lexNonNegativeInteger } from './lexical.ts';

export interface RsmRequest {
  readonly max?: number;
  readonly after?: string;
  /** "" is the empty <before/>: the last page. */
  readonly before?: string;
  readonly index?: number;
}

export interface RsmFirst {
  readonly uid: string;
  readonly index?: number;
}

export interface RsmResponse {
  readonly first?: RsmFirst;
  readonly last?: string;
  readonly count?: number;
}

const REQUEST_CHILDREN = ['max', 'after', 'before', 'index'] as const;
const RESPONSE_CHILDREN = ['first', 'last', 'count'] as const;

const lexXsInt = (text: string) => lexNonNegativeInteger(text, XS_INT_MAX);

/** One child per name, all in the RSM namespace, each name at most once. */
function childrenByName(set: Element, allowed: readonly string[]): Map<string, Element> {
  expectElement(set, 'set', NS.rsm);
  checkAttributes(set, []);
  const byName = new Map<string, Element>();
  for (const child of elementOnlyChildren(set)) {
    const local = localNameOf(child);
    if (namespaceOf(child) !== NS.rsm || !allowed.includes(local)) {
      throw parseFailure(
        set,
        'unexpected-child',
        `<${clarkNameOf(child)}> is not allowed here (allowed: ${allowed.join(', ')})`,
      );
    }
    if (byName.has(local)) throw parseFailure(set, 'duplicate-child', `<${local}/> occurs more than once`);
    byName.set(local, child);
  }
  return byName;
}

function text(element: Element | undefined): string | undefined {
  if (element === undefined) return undefined;
  checkAttributes(element, []);
  return simpleContent(element);
}

function integer(element: Element | undefined): number | undefined {
  if (element === undefined) return undefined;
  checkAttributes(element, []);
  return lexContent(element, lexXsInt);
}

export function parseRsmRequest(set: Element): RsmRequest {
  const children = childrenByName(set, REQUEST_CHILDREN);
  return compact({
    max: integer(children.get('max')),
    after: text(children.get('after')),
    before: text(children.get('before')),
    index: integer(children.get('index')),
  });
}

export function parseRsmResponse(set: Element): RsmResponse {
  const children = childrenByName(set, RESPONSE_CHILDREN);
  const firstElement = children.get('first');
  const last = text(children.get('last'));
  if ((firstElement === undefined) !== (last === undefined)) {
    const missing = firstElement === undefined ? 'first' : 'last';
    throw parseFailure(
      set,
      'missing-child',
      `<first/> and <last/> come together (XEP-0059 §2.2); <${missing}/> is absent`,
    );
  }
  let first: RsmFirst | undefined;
  if (firstElement !== undefined) {
    checkAttributes(firstElement, ['index']);
    const index = lexOptionalAttribute(firstElement, 'index', lexXsInt);
    const uid = simpleContent(firstElement);
    first = index === undefined ? { uid } : { uid, index };
  }
  return compact({ first, last, count: integer(children.get('count')) });
}

const SET: BuildTarget = { local: 'set', ns: NS.rsm };
const rsm = (local: string): BuildTarget => ({ local, ns: NS.rsm });

function intElement(local: string, value: number | undefined): Element | undefined {
  if (value === undefined) return undefined;
  if (value > XS_INT_MAX) throw buildFailure(rsm(local), 'integer-out-of-range', `${value} exceeds xs:int`);
  return xml(local, {}, integerText(rsm(local), undefined, value));
}

function textElement(local: string, value: string | undefined): Element | undefined {
  return value === undefined ? undefined : xml(local, {}, legalText(rsm(local), value));
}

export function buildRsmRequest(request: RsmRequest): Element {
  return xml(
    'set',
    { xmlns: NS.rsm },
    intElement('max', request.max),
    textElement('after', request.after),
    textElement('before', request.before),
    intElement('index', request.index),
  );
}

export function buildRsmResponse(response: RsmResponse): Element {
  const { first, last } = response;
  if ((first === undefined) !== (last === undefined)) {
    throw buildFailure(SET, 'missing-child', '<first/> and <last/> come together (XEP-0059 §2.2)');
  }
  let firstElement: Element | undefined;
  if (first !== undefined) {
    const index = first.index;
    if (index !== undefined && index > XS_INT_MAX) {
      throw buildFailure(rsm('first'), 'integer-out-of-range', `${index} exceeds xs:int`, 'index');
    }
    firstElement = xml(
      'first',
      { index: index === undefined ? undefined : integerText(rsm('first'), 'index', index) },
      legalText(rsm('first'), first.uid),
    );
  }
  return xml(
    'set',
    { xmlns: NS.rsm },
    firstElement,
    textElement('last', last),
    intElement('count', response.count),
  );
}

/** The <set/> directly inside a wrapper such as a disco#items or search <query/>, if any. */
export function findRsmSet(parent: Element): Element | undefined {
  const sets = elementOnlyChildren(parent).filter(
    (child) => localNameOf(child) === 'set' && namespaceOf(child) === NS.rsm,
  );
  if (sets.length > 1) throw parseFailure(parent, 'duplicate-child', 'more than one RSM <set/>');
  return sets[0];
}
