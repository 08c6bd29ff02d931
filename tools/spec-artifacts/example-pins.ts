/**
 * Every place an example pins a hash, with the context that hash must be consistent with:
 * manifest hashes (registration, activation, retrieval, schema requests, invocation, task
 * state, the endpoint-info form) and schema hashes (<schema/>, the tool-info form).
 */
import { FORM_TYPE, NS, NS_AGENT_API, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import type { ExampleMaterial, Payload } from './example-documents.ts';
import type { SpecBlock } from './extract.ts';
import {
  attributeValue,
  childElements,
  firstChild,
  textContent,
  walk,
} from '../../protocol/xml/xml-query.ts';
import type { XmlDocument, XmlElement } from '../../protocol/xml/read-xml.ts';

export interface PinnedHash {
  readonly algo: string | undefined;
  readonly value: string;
}

interface PinBase {
  readonly example: SpecBlock;
  /** Example line of the element or field carrying the hash. */
  readonly line: number;
  /** Human-readable carrier, also the stable prefix of finding subjects: '<invoke/> manifest-hash'. */
  readonly where: string;
  readonly hash: PinnedHash;
  readonly version: string | undefined;
  readonly tool: string | undefined;
}

export interface ManifestPin extends PinBase {
  /** The endpoint-info form's description, which must come from the pinned manifest. */
  readonly description: string | undefined;
}

export interface SchemaPin extends PinBase {
  readonly direction: 'input' | 'output';
}

export interface ExamplePins {
  readonly manifestPins: readonly ManifestPin[];
  readonly schemaPins: readonly SchemaPin[];
}

/** Payload elements whose hash (own child or inside <manifest-hash/>) pins a manifest. */
const MANIFEST_PIN_CARRIERS: readonly {
  readonly namespace: string;
  readonly name: string;
  readonly inManifestHash: boolean;
  readonly version: string;
  readonly tool?: string;
}[] = [
  { namespace: NS_AGENT_API, name: 'registered', inManifestHash: false, version: 'version' },
  { namespace: NS_AGENT_API, name: 'activate', inManifestHash: false, version: 'version' },
  { namespace: NS_AGENT_API, name: 'manifest', inManifestHash: false, version: 'version' },
  { namespace: NS_AGENT_API, name: 'version', inManifestHash: false, version: 'id' },
  {
    namespace: NS_AGENT_API,
    name: 'schema-request',
    inManifestHash: false,
    version: 'version',
    tool: 'tool',
  },
  { namespace: NS_AGENT_API, name: 'schema', inManifestHash: true, version: 'version', tool: 'tool' },
  { namespace: NS_AGENT_TASK, name: 'invoke', inManifestHash: true, version: 'api-version', tool: 'tool' },
  { namespace: NS_AGENT_TASK, name: 'task-state', inManifestHash: true, version: 'api-version' },
];

/** The XEP-0300 <hash/> child of an element. */
export function hashChild(element: XmlElement): XmlElement | undefined {
  return firstChild(element, 'hash', NS.hashes);
}

export function pinnedHash(hash: XmlElement): PinnedHash {
  return { algo: attributeValue(hash, 'algo'), value: textContent(hash) };
}

export function collectPins(material: ExampleMaterial): ExamplePins {
  const manifestPins: ManifestPin[] = [];
  const schemaPins: SchemaPin[] = [];
  const documentOf = new Map(material.documents.map((parsed) => [parsed.example, parsed.document]));
  for (const payload of material.payloads) {
    const document = documentOf.get(payload.example);
    if (document === undefined) continue;
    collectPayloadPins(payload, document, manifestPins, schemaPins);
  }
  for (const { example, document } of material.documents) {
    collectFormPins(example, document, manifestPins, schemaPins);
  }
  return { manifestPins, schemaPins };
}

function collectPayloadPins(
  payload: Payload,
  document: XmlDocument,
  manifestPins: ManifestPin[],
  schemaPins: SchemaPin[],
): void {
  for (const element of walk(payload.element)) {
    const carrier = MANIFEST_PIN_CARRIERS.find(
      (entry) => entry.namespace === element.namespace && entry.name === element.localName,
    );
    if (carrier === undefined) continue;
    const container = carrier.inManifestHash
      ? firstChild(element, 'manifest-hash', carrier.namespace)
      : element;
    const hash = container === undefined ? undefined : hashChild(container);
    const context = {
      example: payload.example,
      version: attributeValue(element, carrier.version),
      tool: carrier.tool === undefined ? undefined : attributeValue(element, carrier.tool),
    };
    if (hash !== undefined) {
      manifestPins.push({
        ...context,
        line: document.lineOf(hash.start),
        where: `<${element.localName}/>${carrier.inManifestHash ? ' manifest-hash' : ' hash'}`,
        hash: pinnedHash(hash),
        description: undefined,
      });
    }
    const schemaHashContainer =
      element.localName === 'schema' ? firstChild(element, 'schema-hash', NS_AGENT_API) : undefined;
    const schemaHash = schemaHashContainer === undefined ? undefined : hashChild(schemaHashContainer);
    const direction = attributeValue(element, 'direction');
    if (schemaHash !== undefined && (direction === 'input' || direction === 'output')) {
      schemaPins.push({
        ...context,
        line: document.lineOf(schemaHash.start),
        where: `<schema/> schema-hash`,
        hash: pinnedHash(schemaHash),
        direction,
      });
    }
  }
}

/** XEP-0004 fields of a form: var → values joined by LF (text-multi, interp-20). */
function formFields(form: XmlElement): Map<string, { value: string; element: XmlElement }> {
  const fields = new Map<string, { value: string; element: XmlElement }>();
  for (const field of childElements(form, 'field', NS.dataForms)) {
    const name = attributeValue(field, 'var');
    if (name === undefined) continue;
    const value = childElements(field, 'value', NS.dataForms).map(textContent).join('\n');
    fields.set(name, { value, element: field });
  }
  return fields;
}

function collectFormPins(
  example: SpecBlock,
  document: XmlDocument,
  manifestPins: ManifestPin[],
  schemaPins: SchemaPin[],
): void {
  for (const form of walk(document.root)) {
    if (form.localName !== 'x' || form.namespace !== NS.dataForms) continue;
    const fields = formFields(form);
    const formType = fields.get('FORM_TYPE')?.value;
    const field = (name: string): string | undefined => fields.get(name)?.value;
    const lineOf = (name: string): number => {
      const entry = fields.get(name);
      return entry === undefined ? document.lineOf(form.start) : document.lineOf(entry.element.start);
    };
    if (formType === FORM_TYPE.endpointInfo) {
      const value = field('manifest_hash_value');
      if (value === undefined) continue;
      manifestPins.push({
        example,
        line: lineOf('manifest_hash_value'),
        where: `${FORM_TYPE.endpointInfo} manifest_hash_value`,
        hash: { algo: field('manifest_hash_algo'), value },
        version: field('version'),
        tool: undefined,
        description: field('description'),
      });
    } else if (formType === FORM_TYPE.toolInfo) {
      for (const direction of ['input', 'output'] as const) {
        const value = field(`${direction}_schema_hash_value`);
        if (value === undefined) continue;
        schemaPins.push({
          example,
          line: lineOf(`${direction}_schema_hash_value`),
          where: `${FORM_TYPE.toolInfo} ${direction}_schema_hash_value`,
          hash: { algo: field(`${direction}_schema_hash_algo`), value },
          version: field('api_version'),
          tool: field('name'),
          direction,
        });
      }
    }
  }
}
