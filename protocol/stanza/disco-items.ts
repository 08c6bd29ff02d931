/**
 * XEP-0030 disco#items queries and results, with an optional XEP-0059 <set/> (#list-agents,
 * #list-tools). Items are childless apart from ignorable foreign extensions (XEP-0030 §4.1);
 * node strings are opaque here (tool-node.ts decodes them).
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { NS } from '../namespaces.ts';
import { compact } from './compact.ts';
import { attributeOf, clarkNameOf, localNameOf, namespaceOf } from './element-access.ts';
import {
  checkAttributes,
  elementOnlyChildren,
  expectElement,
  parseFailure,
  requiredAttribute,
} from './element-reader.ts';
import { legalText, validateBuilt } from './element-writer.ts';
import { buildRsmRequest, buildRsmResponse, findRsmSet, parseRsmRequest, parseRsmResponse } from './rsm.ts';
import type { RsmRequest, RsmResponse } from './rsm.ts';

export interface DiscoItemsRequest {
  readonly node?: string;
  readonly rsm?: RsmRequest;
}

export interface DiscoItem {
  readonly jid: string;
  readonly node?: string;
  readonly name?: string;
}

export interface DiscoItems {
  readonly node?: string;
  /** In document order: ordering rules (#list-agents, #list-tools) are judged by the caller. */
  readonly items: readonly DiscoItem[];
  readonly rsm?: RsmResponse;
}

/** The query's own children in disco#items; foreign extensions other than RSM are skipped. */
function ownChildren(query: Element, allowed: readonly string[]): Element[] {
  const own = elementOnlyChildren(query).filter((child) => namespaceOf(child) === NS.discoItems);
  for (const child of own) {
    if (!allowed.includes(localNameOf(child))) {
      throw parseFailure(query, 'unexpected-child', `<${clarkNameOf(child)}> is not allowed here`);
    }
  }
  return own;
}

export function parseDiscoItemsRequest(query: Element): DiscoItemsRequest {
  expectElement(query, 'query', NS.discoItems);
  checkAttributes(query, ['node']);
  ownChildren(query, []);
  const set = findRsmSet(query);
  return compact({
    node: attributeOf(query, 'node'),
    rsm: set === undefined ? undefined : parseRsmRequest(set),
  });
}

export function buildDiscoItemsRequest(request: DiscoItemsRequest): Element {
  const node =
    request.node === undefined
      ? undefined
      : legalText({ local: 'query', ns: NS.discoItems }, request.node, 'node');
  return xml(
    'query',
    { xmlns: NS.discoItems, node },
    request.rsm === undefined ? undefined : buildRsmRequest(request.rsm),
  );
}

function parseItem(item: Element): DiscoItem {
  checkAttributes(item, ['jid', 'node', 'name']);
  const [child] = elementOnlyChildren(item).filter((element) => namespaceOf(element) === NS.discoItems);
  if (child !== undefined) {
    throw parseFailure(item, 'unexpected-child', `<${clarkNameOf(child)}> inside an item`);
  }
  return compact({
    jid: requiredAttribute(item, 'jid'),
    node: attributeOf(item, 'node'),
    name: attributeOf(item, 'name'),
  });
}

export function parseDiscoItems(query: Element): DiscoItems {
  expectElement(query, 'query', NS.discoItems);
  checkAttributes(query, ['node']);
  const items = ownChildren(query, ['item']).map(parseItem);
  const set = findRsmSet(query);
  return compact({
    node: attributeOf(query, 'node'),
    items,
    rsm: set === undefined ? undefined : parseRsmResponse(set),
  });
}

export function buildDiscoItems(result: DiscoItems): Element {
  const text = (local: string, attribute: string, value: string | undefined): string | undefined =>
    value === undefined ? undefined : legalText({ local, ns: NS.discoItems }, value, attribute);
  const element = xml(
    'query',
    { xmlns: NS.discoItems, node: text('query', 'node', result.node) },
    result.items.map((item) =>
      xml('item', {
        jid: text('item', 'jid', item.jid),
        node: text('item', 'node', item.node),
        name: text('item', 'name', item.name),
      }),
    ),
    result.rsm === undefined ? undefined : buildRsmResponse(result.rsm),
  );
  return validateBuilt(element, parseDiscoItems);
}
