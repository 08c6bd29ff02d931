/**
 * Turns spec examples into checkable material: XML examples are parsed strictly (several
 * stanzas wrapped in one root), their direct agent-api / agent-task payloads located, and
 * JSON examples and the JSON-bearing elements of payloads parsed with the strict I-JSON
 * parser that every received JSON text goes through (#json-encoding).
 */
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { NS, NS_AGENT_API, NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import type { SpecBlock } from './extract.ts';
import { blockLocation, exampleArtifact, type Finding } from './finding.ts';
import { standaloneSource, textContent, walk } from '../../protocol/xml/xml-query.ts';
import { readXml, type XmlDocument, type XmlElement } from '../../protocol/xml/read-xml.ts';
import { XmlSyntaxError } from '../../protocol/xml/xml-syntax-error.ts';

/** A direct payload: an agent-api / agent-task element that is top-level or a stanza child. */
export interface Payload {
  readonly example: SpecBlock;
  readonly element: XmlElement;
  /** The payload as a standalone document (for XSD validation). */
  readonly source: string;
  /** 1-based line of the payload's start tag within the example. */
  readonly line: number;
}

/** One JSON text found in the examples, with where it sits. */
export interface JsonSite {
  readonly example: SpecBlock;
  /** Local-name path from the payload root: 'register/manifest', 'event', … ; 'example' for a JSON example. */
  readonly site: string;
  /** The JSON-bearing element; undefined for a JSON example. */
  readonly element: XmlElement | undefined;
  readonly payload: Payload | undefined;
  readonly value: JsonValue;
  readonly line: number;
}

export interface ParsedXmlExample {
  readonly example: SpecBlock;
  readonly document: XmlDocument;
}

export interface ExampleMaterial {
  readonly findings: Finding[];
  readonly documents: readonly ParsedXmlExample[];
  readonly payloads: readonly Payload[];
  readonly jsonSites: readonly JsonSite[];
}

const OUR_NAMESPACES: ReadonlySet<string | null> = new Set([NS_AGENT_API, NS_AGENT_TASK]);
const STANZA_NAMES: ReadonlySet<string> = new Set(['iq', 'message', 'presence']);
const STANZA_NAMESPACES: ReadonlySet<string | null> = new Set([
  null,
  NS.client,
  NS.component,
  'jabber:server',
]);
const WRAPPER = 'spec-example';

/**
 * Elements whose character content is one JSON text (#json-encoding), keyed by namespace and
 * local name, with the parent's local name where the name alone is ambiguous (<manifest/>
 * is JSON inside <register/> but a container when served).
 */
const JSON_BEARING: readonly { namespace: string; name: string; parent?: string }[] = [
  { namespace: NS_AGENT_API, name: 'manifest', parent: 'register' },
  { namespace: NS_AGENT_API, name: 'json' },
  { namespace: NS_AGENT_TASK, name: 'arguments' },
  { namespace: NS_AGENT_TASK, name: 'input' },
  { namespace: NS_AGENT_TASK, name: 'pending-input' },
  { namespace: NS_AGENT_TASK, name: 'event' },
  { namespace: NS_AGENT_TASK, name: 'task-result' },
];

export function readExamples(examples: readonly SpecBlock[]): ExampleMaterial {
  const findings: Finding[] = [];
  const documents: ParsedXmlExample[] = [];
  const payloads: Payload[] = [];
  const jsonSites: JsonSite[] = [];
  for (const example of examples) {
    const trimmed = example.text.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      const value = parseJson(example, 'example', example.text, 1, findings);
      if (value !== undefined) {
        jsonSites.push({ example, site: 'example', element: undefined, payload: undefined, value, line: 1 });
      }
      continue;
    }
    const document = parseXmlExample(example, findings);
    if (document === undefined) continue;
    documents.push({ example, document });
    for (const element of walk(document.root)) {
      if (!isDirectPayload(element)) continue;
      const payload: Payload = {
        example,
        element,
        source: standaloneSource(document, element),
        line: document.lineOf(element.start),
      };
      payloads.push(payload);
      for (const inner of walk(element)) {
        const site = jsonSiteName(element, inner);
        if (site === undefined) continue;
        const line = document.lineOf(inner.start);
        const firstText = inner.children.find((child) => child.kind === 'text');
        const textLine = firstText === undefined ? line : document.lineOf(firstText.valueStart);
        const value = parseJson(example, site, textContent(inner), textLine, findings);
        if (value !== undefined) jsonSites.push({ example, site, element: inner, payload, value, line });
      }
    }
  }
  return { findings, documents, payloads, jsonSites };
}

function parseXmlExample(example: SpecBlock, findings: Finding[]): XmlDocument | undefined {
  const base = { rule: 'example-xml', artifact: exampleArtifact(example.caption), subject: 'xml' } as const;
  if (!example.text.trimStart().startsWith('<')) {
    findings.push({ ...base, severity: 'fail', details: 'neither XML nor JSON', ...blockLocation(example) });
    return undefined;
  }
  try {
    // The wrapper start tag adds no line, so lines in the document are lines of the example.
    const document = readXml(`<${WRAPPER}>${example.text}</${WRAPPER}>`);
    findings.push({ ...base, severity: 'ok', details: 'well-formed', ...blockLocation(example) });
    return document;
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error;
    findings.push({
      ...base,
      severity: 'fail',
      details: error.message,
      ...blockLocation(example, error.line),
    });
    return undefined;
  }
}

function isDirectPayload(element: XmlElement): boolean {
  if (!OUR_NAMESPACES.has(element.namespace)) return false;
  const parent = element.parent;
  if (parent === null) return false;
  if (parent.parent === null) return true;
  return STANZA_NAMES.has(parent.localName) && STANZA_NAMESPACES.has(parent.namespace);
}

function jsonSiteName(payload: XmlElement, element: XmlElement): string | undefined {
  const parentName = element.parent?.localName;
  const bearing = JSON_BEARING.some(
    (entry) =>
      entry.namespace === element.namespace &&
      entry.name === element.localName &&
      (entry.parent === undefined || entry.parent === parentName),
  );
  if (!bearing) return undefined;
  const names: string[] = [];
  for (let node: XmlElement | null = element; node !== null; node = node.parent) {
    names.unshift(node.localName);
    if (node === payload) break;
  }
  return names.join('/');
}

function parseJson(
  example: SpecBlock,
  site: string,
  text: string,
  /** Example line on which `text` starts. */
  line: number,
  findings: Finding[],
): JsonValue | undefined {
  const base = { rule: 'example-json', artifact: exampleArtifact(example.caption), subject: site } as const;
  try {
    const value = parseStrictJson(text);
    findings.push({
      ...base,
      severity: 'ok',
      details: 'strict I-JSON parse',
      ...blockLocation(example, line),
    });
    return value;
  } catch (error) {
    if (!(error instanceof JsonRejection)) throw error;
    findings.push({
      ...base,
      severity: 'fail',
      details: `strict JSON parse rejects it (${error.rule}): ${error.message}`,
      ...blockLocation(example, line + error.line - 1),
    });
    return undefined;
  }
}
