/**
 * A target endpoint answered from one manifest, as the catalog's unit tests need it: gateway and
 * endpoint disco#info, manifest retrieval, the tool collection with RSM pages of `pageSize`,
 * tool information and schema retrieval, all built with protocol/'s codecs. `tamper` lets a
 * test break one answer.
 */
import { canonicalDocument, canonicalJson } from '../../protocol/json/canonical.ts';
import type { JsonObject } from '../../protocol/json/json-value.ts';
import { FEATURE, FORM_TYPE, IDENTITY_CATEGORY, IDENTITY_TYPE } from '../../protocol/namespaces.ts';
import { attributeOf, localNameOf } from '../../protocol/stanza/element-access.ts';
import {
  buildDiscoInfo,
  buildDiscoItems,
  buildManifest,
  buildSchema,
  findRsmSet,
  parseDiscoItemsRequest,
  parseRsmRequest,
  parseSchemaRequest,
  type Manifest,
} from '../../protocol/stanza/index.ts';
import { decodeToolNode, encodeToolNode } from '../../protocol/tool-node.ts';
import type { ScriptedAnswer, SentIq } from './scripted-querier.ts';

export interface WorldOptions {
  readonly pageSize?: number;
  readonly replaySeconds?: number;
  readonly gatewayFeatures?: readonly string[];
  readonly tamper?: { readonly manifest?: (manifest: Manifest) => Manifest };
}

function field(name: string, value: string) {
  return { var: name, values: [value] };
}

export function scriptedWorld(
  document: JsonObject,
  options: WorldOptions = {},
): (sent: SentIq) => ScriptedAnswer {
  const manifest = canonicalDocument(document);
  const agent = document['agent'] as JsonObject;
  const version = agent['version'] as string;
  const jid = agent['jid'] as string;
  const tools = (document['tools'] as JsonObject[]).toSorted((a, b) =>
    Buffer.compare(Buffer.from(a['name'] as string), Buffer.from(b['name'] as string)),
  );
  const toolNamed = (name: string) => tools.find((tool) => tool['name'] === name);
  const schemaHash = (schema: JsonObject) => canonicalDocument(schema).hash;
  return (sent) => {
    const { payload } = sent;
    const local = localNameOf(payload);
    if (local === 'manifest-request') {
      const answer: Manifest = { version, hash: manifest.hash, json: manifest.bytes.toString('utf8') };
      return { result: buildManifest(options.tamper?.manifest?.(answer) ?? answer) };
    }
    if (local === 'schema-request') {
      const request = parseSchemaRequest(payload);
      const schema = toolNamed(request.tool)?.[
        request.direction === 'input' ? 'inputSchema' : 'outputSchema'
      ] as JsonObject;
      return {
        result: buildSchema({ ...request, schemaHash: schemaHash(schema), json: canonicalJson(schema) }),
      };
    }
    const node = attributeOf(payload, 'node');
    if (local === 'query' && payload.attrs['xmlns'] === 'http://jabber.org/protocol/disco#items') {
      const request = parseDiscoItemsRequest(payload);
      const set = findRsmSet(payload);
      const rsm = set === undefined ? {} : parseRsmRequest(set);
      const nodes = tools.map((tool) => encodeToolNode(version, tool['name'] as string));
      const start = rsm.after === undefined ? 0 : nodes.indexOf(rsm.after) + 1;
      const page = nodes.slice(start, start + (options.pageSize ?? rsm.max ?? nodes.length));
      return {
        result: buildDiscoItems({
          ...(request.node === undefined ? {} : { node: request.node }),
          items: page.map((itemNode) => ({ jid, node: itemNode })),
          rsm:
            page.length === 0
              ? { count: nodes.length }
              : { first: { uid: page[0] ?? '', index: start }, last: page.at(-1) ?? '', count: nodes.length },
        }),
      };
    }
    if (sent.to !== jid) {
      return {
        result: buildDiscoInfo({
          identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.gateway }],
          features: options.gatewayFeatures ?? [FEATURE.directory],
        }),
      };
    }
    if (node === undefined) {
      return {
        result: buildDiscoInfo({
          identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.endpoint }],
          features: [FEATURE.endpoint, FEATURE.task],
          forms: [
            {
              type: 'result',
              fields: [
                { var: 'FORM_TYPE', type: 'hidden', values: [FORM_TYPE.endpointInfo] },
                field('version', version),
                field('manifest_hash_algo', manifest.hash.algo),
                field('manifest_hash_value', manifest.hash.value),
                field('request_replay_seconds', String(options.replaySeconds ?? 86_400)),
              ],
            },
          ],
        }),
      };
    }
    const name = decodeToolNode(node).toolName;
    const tool = toolNamed(name) ?? {};
    const output = tool['outputSchema'] as JsonObject | undefined;
    const input = schemaHash(tool['inputSchema'] as JsonObject);
    return {
      result: buildDiscoInfo({
        node,
        identities: [{ category: IDENTITY_CATEGORY, type: IDENTITY_TYPE.tool }],
        features: [FEATURE.tool],
        forms: [
          {
            type: 'result',
            fields: [
              { var: 'FORM_TYPE', type: 'hidden', values: [FORM_TYPE.toolInfo] },
              field('name', name),
              field('api_version', version),
              field('input_schema_hash_algo', input.algo),
              field('input_schema_hash_value', input.value),
              ...(output === undefined
                ? []
                : [
                    field('output_schema_hash_algo', schemaHash(output).algo),
                    field('output_schema_hash_value', schemaHash(output).value),
                  ]),
            ],
          },
        ],
      }),
    };
  };
}
