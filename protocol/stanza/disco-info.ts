/**
 * XEP-0030 disco#info queries and results, with XEP-0128 extension forms. The result must name
 * at least one identity and one feature, features are childless, and one category/type/xml:lang
 * must not carry two names (XEP-0030 §3.1). Elements of other namespaces are extensions and skipped.
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
  expectEmpty,
  parseFailure,
  requiredAttribute,
} from './element-reader.ts';
import { legalText, validateBuilt } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { buildDataForm, formTypeOf, parseDataForm } from './data-form.ts';
import type { DataForm, DataFormInput } from './data-form.ts';

export interface DiscoInfoRequest {
  readonly node?: string;
}

export interface DiscoIdentity {
  readonly category: string;
  readonly type: string;
  readonly name?: string;
  readonly lang?: string;
}

export interface DiscoInfo {
  readonly node?: string;
  readonly identities: readonly DiscoIdentity[];
  /** In document order, duplicates kept: judging them is the caller's business. */
  readonly features: readonly string[];
  /** XEP-0128 extension forms. */
  readonly forms: readonly DataForm[];
}

export interface DiscoInfoInput {
  readonly node?: string;
  readonly identities: readonly DiscoIdentity[];
  readonly features: readonly string[];
  readonly forms?: readonly DataFormInput[];
}

const INFO: BuildTarget = { local: 'query', ns: NS.discoInfo };

function nodeOf(query: Element): { node?: string } {
  return compact({ node: attributeOf(query, 'node') });
}

/** A request <query/> carries at most a node; child elements in disco#info are refused. */
export function parseDiscoInfoRequest(query: Element): DiscoInfoRequest {
  expectElement(query, 'query', NS.discoInfo);
  checkAttributes(query, ['node']);
  const [child] = elementOnlyChildren(query).filter((element) => namespaceOf(element) === NS.discoInfo);
  if (child !== undefined) {
    throw parseFailure(query, 'unexpected-child', `a request carries no <${clarkNameOf(child)}>`);
  }
  return nodeOf(query);
}

export function buildDiscoInfoRequest(request: DiscoInfoRequest): Element {
  const node = request.node === undefined ? undefined : legalText(INFO, request.node, 'node');
  return xml('query', { xmlns: NS.discoInfo, node });
}

function nonEmptyAttribute(element: Element, name: string): string {
  const value = requiredAttribute(element, name);
  if (value === '') throw parseFailure(element, 'invalid-attribute', 'must not be empty', name);
  return value;
}

function parseIdentity(element: Element): DiscoIdentity {
  checkAttributes(element, ['category', 'type', 'name', 'xml:lang']);
  expectEmpty(element);
  return compact({
    category: nonEmptyAttribute(element, 'category'),
    type: nonEmptyAttribute(element, 'type'),
    name: attributeOf(element, 'name'),
    lang: attributeOf(element, 'xml:lang'),
  });
}

function parseFeature(element: Element): string {
  checkAttributes(element, ['var']);
  expectEmpty(element);
  return requiredAttribute(element, 'var');
}

export function parseDiscoInfo(query: Element): DiscoInfo {
  expectElement(query, 'query', NS.discoInfo);
  checkAttributes(query, ['node']);
  const identities: DiscoIdentity[] = [];
  const features: string[] = [];
  const forms: DataForm[] = [];
  for (const child of elementOnlyChildren(query)) {
    const ns = namespaceOf(child);
    const local = localNameOf(child);
    if (ns === NS.dataForms && local === 'x') {
      forms.push(parseDataForm(child));
    } else if (ns === NS.discoInfo && local === 'identity') {
      const identity = parseIdentity(child);
      const clash = identities.find(
        (other) =>
          other.category === identity.category &&
          other.type === identity.type &&
          other.lang === identity.lang &&
          other.name !== identity.name,
      );
      if (clash !== undefined) {
        throw parseFailure(
          query,
          'duplicate-identity',
          `${identity.category}/${identity.type} has two names for one xml:lang`,
        );
      }
      identities.push(identity);
    } else if (ns === NS.discoInfo && local === 'feature') {
      features.push(parseFeature(child));
    } else if (ns === NS.discoInfo) {
      throw parseFailure(query, 'unexpected-child', `<${clarkNameOf(child)}> is not part of disco#info`);
    }
  }
  if (identities.length === 0) {
    throw parseFailure(query, 'missing-child', 'a result needs at least one <identity/>');
  }
  if (features.length === 0) {
    throw parseFailure(query, 'missing-child', 'a result needs at least one <feature/>');
  }
  return { ...nodeOf(query), identities, features, forms };
}

export function buildDiscoInfo(info: DiscoInfoInput): Element {
  const text = (local: string, attribute: string, value: string | undefined): string | undefined =>
    value === undefined ? undefined : legalText({ local, ns: NS.discoInfo }, value, attribute);
  const element = xml(
    'query',
    { xmlns: NS.discoInfo, node: text('query', 'node', info.node) },
    info.identities.map((identity) =>
      xml('identity', {
        category: text('identity', 'category', identity.category),
        type: text('identity', 'type', identity.type),
        name: text('identity', 'name', identity.name),
        'xml:lang': text('identity', 'xml:lang', identity.lang),
      }),
    ),
    info.features.map((feature) => xml('feature', { var: text('feature', 'var', feature) })),
    (info.forms ?? []).map(buildDataForm),
  );
  return validateBuilt(element, parseDiscoInfo);
}

/** The XEP-0128 extension forms whose FORM_TYPE is `formType`. */
export function extensionForms(info: DiscoInfo, formType: string): DataForm[] {
  return info.forms.filter((form) => formTypeOf(form) === formType);
}

export function hasFeature(info: DiscoInfo, feature: string): boolean {
  return info.features.includes(feature);
}
