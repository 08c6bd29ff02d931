/**
 * The XML Schemas of XEP-0030, XEP-0059, XEP-0004 and XEP-0055, taken from the XEP sources in
 * the shared spec directory when the tests run (nothing is copied into the repository), as one
 * schema set for protocol/xsd's xmllint batch.
 *
 * Each of these schemas rejects examples of its own XEP. Validating against them verbatim would
 * fail every standard client's traffic, so a few named relaxations are applied, each one
 * justified by the XEP's own examples and each required to match the XEP text exactly as many
 * times as stated (a changed XEP fails loudly instead of silently validating less):
 *
 * - XEP-0059: the <set/> children form an xs:sequence in alphabetical order, while the XEP's
 *   examples send <max/> first and answer <first/>, <last/>, <count/>; the children are an
 *   xs:all instead (each still at most once).
 * - XEP-0004 (whose schema says it is "descriptive, not normative"): <instructions/> must
 *   precede <title/>, while the XEP's and XEP-0055's examples put <title/> first; instructions
 *   may now stand on either side of the one optional title.
 * - XEP-0055: the legacy fields inside xs:all default to minOccurs 1, so the XEP's own
 *   "Receiving Search Fields" and form examples (a subset of fields) are invalid; each field
 *   becomes optional. The query's xs:all sits inside an xs:choice, which XSD 1.0 forbids (the
 *   schema does not compile); it becomes a sequence in the declared order, every field still
 *   at most once (the XEP's examples follow that order). The x-data import points at the
 *   extracted XEP-0004 schema, not the web.
 *
 * Extension elements (an RSM <set/> in a disco#items or search <query/>, a XEP-0128 form in a
 * disco#info <query/>) are not modelled by the host schemas at all; payload-conformance.ts
 * validates each namespace's elements against their own schema instead.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { XMLFileInfo } from 'xmllint-wasm';
import { NS } from '../../protocol/namespaces.ts';
import { SHARED_DIR } from '../../protocol/test-support/shared-paths.ts';
import type { SchemaBundle } from '../../protocol/xsd/schema-bundle.ts';

export const XEPS_DIR = resolve(SHARED_DIR, 'spec', 'xeps');

/** The namespaces validated against XEP schemas, with the file each schema is extracted from. */
export const XEP_SCHEMA_SOURCES = [
  { namespace: NS.discoInfo, xep: 'xep-0030.xml', file: 'disco-info.xsd' },
  { namespace: NS.discoItems, xep: 'xep-0030.xml', file: 'disco-items.xsd' },
  { namespace: NS.rsm, xep: 'xep-0059.xml', file: 'rsm.xsd' },
  { namespace: NS.dataForms, xep: 'xep-0004.xml', file: 'x-data.xsd' },
  { namespace: NS.search, xep: 'xep-0055.xml', file: 'search.xsd' },
] as const;

export type XepNamespace = (typeof XEP_SCHEMA_SOURCES)[number]['namespace'];

export function isXepNamespace(namespace: string | undefined): namespace is XepNamespace {
  return XEP_SCHEMA_SOURCES.some((source) => source.namespace === namespace);
}

interface Relaxation {
  readonly why: string;
  readonly pattern: RegExp;
  readonly replacement: string;
  /** How often the pattern must match the XEP's schema text. */
  readonly matches: number;
}

const RELAXATIONS: Readonly<Partial<Record<XepNamespace, readonly Relaxation[]>>> = {
  [NS.rsm]: [
    {
      why: 'XEP-0059 examples order <set/> children freely (<max/> first; <first/>, <last/>, <count/>)',
      pattern: /<xs:sequence>/g,
      replacement: '<xs:all>',
      matches: 1,
    },
    { why: 'closes the xs:all above', pattern: /<\/xs:sequence>/g, replacement: '</xs:all>', matches: 1 },
  ],
  [NS.dataForms]: [
    {
      why: 'XEP-0004 and XEP-0055 examples put <title/> before <instructions/>',
      pattern:
        /<xs:element name='instructions'\s+minOccurs='0'\s+maxOccurs='unbounded'\s+type='xs:string'\/>\s*<xs:element name='title' minOccurs='0' type='xs:string'\/>/g,
      replacement:
        "<xs:element name='instructions' minOccurs='0' maxOccurs='unbounded' type='xs:string'/>" +
        "<xs:sequence minOccurs='0'><xs:element name='title' type='xs:string'/>" +
        "<xs:element name='instructions' minOccurs='0' maxOccurs='unbounded' type='xs:string'/></xs:sequence>",
      matches: 1,
    },
  ],
  [NS.search]: [
    {
      why: "XEP-0055's own examples offer and return a subset of the legacy fields",
      pattern: /<xs:element name='(instructions|first|last|nick|email)' type='xs:string'\/>/g,
      replacement: "<xs:element name='$1' type='xs:string' minOccurs='0'/>",
      matches: 9,
    },
    {
      why: 'XSD 1.0 allows no xs:all inside xs:choice: the query fields become a sequence in declared order',
      pattern: /<xs:all xmlns:xdata='jabber:x:data'>([\s\S]*?)<\/xs:all>/g,
      replacement: "<xs:sequence xmlns:xdata='jabber:x:data'>$1</xs:sequence>",
      matches: 1,
    },
    {
      why: 'resolve the x-data import to the extracted XEP-0004 schema, never the network',
      pattern: /schemaLocation='http:\/\/www\.xmpp\.org\/schemas\/x-data\.xsd'/g,
      replacement: "schemaLocation='x-data.xsd'",
      matches: 1,
    },
  ],
};

export class XepSchemaError extends Error {
  override readonly name = 'XepSchemaError';
}

/** Every <xs:schema> block of a XEP's XML source, by target namespace. */
function schemaBlocks(xepText: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const match of xepText.matchAll(/<!\[CDATA\[([\s\S]*?)\]\]>/g)) {
    const text = (match[1] ?? '').trim();
    if (!text.includes('<xs:schema')) continue;
    const target = /targetNamespace='([^']*)'/.exec(text)?.[1];
    if (target !== undefined) blocks.set(target, text);
  }
  return blocks;
}

function relaxed(namespace: XepNamespace, schema: string): string {
  let text = schema;
  for (const relaxation of RELAXATIONS[namespace] ?? []) {
    const found = [...text.matchAll(relaxation.pattern)].length;
    if (found !== relaxation.matches) {
      throw new XepSchemaError(
        `${namespace}: relaxation "${relaxation.why}" matched ${found} time(s), expected ${relaxation.matches}; ` +
          'the XEP schema changed, review the relaxation',
      );
    }
    text = text.replace(relaxation.pattern, relaxation.replacement);
  }
  return text;
}

/** The relaxed schema texts, by namespace, read from `xepsDir`. */
export function extractXepSchemas(xepsDir: string = XEPS_DIR): ReadonlyMap<XepNamespace, XMLFileInfo> {
  const byXep = new Map<string, Map<string, string>>();
  const schemas = new Map<XepNamespace, XMLFileInfo>();
  for (const source of XEP_SCHEMA_SOURCES) {
    let blocks = byXep.get(source.xep);
    if (blocks === undefined) {
      blocks = schemaBlocks(readFileSync(resolve(xepsDir, source.xep), 'utf8'));
      byXep.set(source.xep, blocks);
    }
    const schema = blocks.get(source.namespace);
    if (schema === undefined) {
      throw new XepSchemaError(`${source.xep} has no schema for ${source.namespace}`);
    }
    schemas.set(source.namespace, {
      fileName: source.file,
      contents: relaxed(source.namespace, schema),
    });
  }
  return schemas;
}

/** One xmllint schema set importing every extracted schema (xmllint takes a single --schema). */
export function xepSchemaBundle(schemas: ReadonlyMap<XepNamespace, XMLFileInfo>): SchemaBundle {
  const imports = [...schemas].map(
    ([namespace, file]) => `  <xs:import namespace='${namespace}' schemaLocation='${file.fileName}'/>`,
  );
  const driver = [
    `<?xml version='1.0' encoding='UTF-8'?>`,
    `<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'>`,
    ...imports,
    `</xs:schema>`,
    '',
  ].join('\n');
  return {
    driver: { fileName: 'agentconf-xep-driver.xsd', contents: driver },
    imports: [...schemas.values()],
  };
}
