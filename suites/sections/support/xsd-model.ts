/**
 * The normative XSDs (xsd/, the same files protocol/xsd validates against) read as a small model
 * of the request elements: each element's attributes (type, use, fixed value) and the children
 * of its sequence. The bad-input generator (bad-input.ts) breaks a valid request where the
 * schema says it can break — a required attribute or child left out, an attribute value outside
 * its simple type, a fixed value changed — and the XSD validator then confirms every mutant is
 * invalid, so the generator never sends a request the schema allows and calls it malformed.
 *
 * Only what the two schemas use is read: top-level named simple types (pattern, enumeration,
 * minLength restrictions of xs:string), complexType with sequence/attributes or simpleContent
 * extension, named complexTypes, xs:any. Anything else is a programming error, reported at load.
 */
import type { Element } from '@xmpp/xml';
import { committedSchemaTexts } from '../../../protocol/xsd/schema-bundle.ts';
import {
  attributeOf,
  childElementsOf,
  localNameOf,
  namespaceOf,
  parseXml,
} from '../../../protocol/stanza/index.ts';

const XS = 'http://www.w3.org/2001/XMLSchema';

export interface XsdSimpleType {
  readonly pattern?: string;
  readonly enumeration?: readonly string[];
  readonly minLength?: number;
}

export interface XsdAttribute {
  readonly name: string;
  /** `xs:string`, `xs:dateTime`, … or a simple type of the schema (`identifier`, `version`). */
  readonly type: string;
  readonly required: boolean;
  readonly fixed?: string;
}

export interface XsdChild {
  /** Undefined for an xs:any. */
  readonly name?: string;
  /** The namespace an xs:any takes. */
  readonly anyNamespace?: string;
  readonly minOccurs: number;
  readonly maxOccurs: number;
  readonly element?: XsdElement;
}

export interface XsdElement {
  readonly name: string;
  readonly namespace: string;
  readonly attributes: readonly XsdAttribute[];
  readonly children: readonly XsdChild[];
  /** simpleContent: character data of this type (`xs:string`, `xs:dateTime`). */
  readonly textType?: string;
}

export interface XsdModel {
  readonly namespace: string;
  readonly simpleTypes: ReadonlyMap<string, XsdSimpleType>;
  /** Top-level elements by local name. */
  readonly elements: ReadonlyMap<string, XsdElement>;
}

function xsChildren(element: Element, local?: string): Element[] {
  return childElementsOf(element).filter(
    (child) => namespaceOf(child) === XS && (local === undefined || localNameOf(child) === local),
  );
}

function required(element: Element, name: string): string {
  const value = attributeOf(element, name);
  if (value === undefined) throw new Error(`xsd-model: <${element.name}> without ${name}`);
  return value;
}

function occurs(value: string | undefined): number {
  if (value === undefined) return 1;
  return value === 'unbounded' ? Number.POSITIVE_INFINITY : Number(value);
}

function readSimpleType(node: Element): XsdSimpleType {
  const restriction = xsChildren(node, 'restriction')[0];
  if (restriction === undefined) throw new Error('xsd-model: a simpleType without restriction');
  const facets = xsChildren(restriction);
  const pattern = facets.find((facet) => localNameOf(facet) === 'pattern');
  const enumeration = facets
    .filter((facet) => localNameOf(facet) === 'enumeration')
    .map((facet) => required(facet, 'value'));
  const minLength = facets.find((facet) => localNameOf(facet) === 'minLength');
  return {
    ...(pattern === undefined ? {} : { pattern: required(pattern, 'value') }),
    ...(enumeration.length === 0 ? {} : { enumeration }),
    ...(minLength === undefined ? {} : { minLength: Number(required(minLength, 'value')) }),
  };
}

function readAttribute(node: Element): XsdAttribute {
  const fixed = attributeOf(node, 'fixed');
  return {
    name: required(node, 'name'),
    type: required(node, 'type'),
    required: attributeOf(node, 'use') === 'required',
    ...(fixed === undefined ? {} : { fixed }),
  };
}

class Reader {
  readonly #complexTypes = new Map<string, Element>();

  constructor(
    readonly namespace: string,
    schema: Element,
  ) {
    for (const node of xsChildren(schema, 'complexType'))
      this.#complexTypes.set(required(node, 'name'), node);
  }

  element(node: Element): XsdElement {
    const name = required(node, 'name');
    const type = attributeOf(node, 'type');
    const inline = xsChildren(node, 'complexType')[0];
    if (inline !== undefined) return this.complex(name, inline);
    if (type === undefined) throw new Error(`xsd-model: element ${name} has neither type nor complexType`);
    const named = this.#complexTypes.get(type);
    if (named !== undefined) return this.complex(name, named);
    return { name, namespace: this.namespace, attributes: [], children: [], textType: type };
  }

  complex(name: string, node: Element): XsdElement {
    const simple = xsChildren(node, 'simpleContent')[0];
    if (simple !== undefined) {
      const extension = xsChildren(simple, 'extension')[0];
      if (extension === undefined) throw new Error(`xsd-model: ${name}: simpleContent without extension`);
      return {
        name,
        namespace: this.namespace,
        attributes: xsChildren(extension, 'attribute').map(readAttribute),
        children: [],
        textType: required(extension, 'base'),
      };
    }
    const sequence = xsChildren(node, 'sequence')[0];
    const children: XsdChild[] = (sequence === undefined ? [] : xsChildren(sequence)).map((child) => {
      const minOccurs = occurs(attributeOf(child, 'minOccurs'));
      const maxOccurs = occurs(attributeOf(child, 'maxOccurs'));
      if (localNameOf(child) === 'any') {
        return { anyNamespace: required(child, 'namespace'), minOccurs, maxOccurs };
      }
      const element = this.element(child);
      return { name: element.name, minOccurs, maxOccurs, element };
    });
    return {
      name,
      namespace: this.namespace,
      attributes: xsChildren(node, 'attribute').map(readAttribute),
      children,
    };
  }
}

function readSchema(text: string): XsdModel {
  const schema = parseXml(text);
  const namespace = required(schema, 'targetNamespace');
  const reader = new Reader(namespace, schema);
  const simpleTypes = new Map(
    xsChildren(schema, 'simpleType').map((node) => [required(node, 'name'), readSimpleType(node)] as const),
  );
  const elements = new Map(
    xsChildren(schema, 'element').map((node) => {
      const element = reader.element(node);
      return [element.name, element] as const;
    }),
  );
  return { namespace, simpleTypes, elements };
}

let models: readonly XsdModel[] | undefined;

/** The agent-api and agent-task schemas, read once per process. */
export function xsdModels(): readonly XsdModel[] {
  if (models === undefined) {
    const texts = committedSchemaTexts();
    models = [readSchema(texts.agentApi), readSchema(texts.agentTask)];
  }
  return models;
}

/** The model of a top-level element of `namespace`. */
export function xsdElement(namespace: string, name: string): { model: XsdModel; element: XsdElement } {
  const model = xsdModels().find((candidate) => candidate.namespace === namespace);
  const element = model?.elements.get(name);
  if (model === undefined || element === undefined) throw new Error(`no XSD declares {${namespace}}${name}`);
  return { model, element };
}
