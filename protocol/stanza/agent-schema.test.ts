import { describe, it } from 'vitest';
import { NS_AGENT_API } from '../namespaces.ts';
import { buildSchema, buildSchemaRequest, parseSchema, parseSchemaRequest } from './agent-schema.ts';
import {
  MANIFEST_HASH,
  SCHEMA_HASH,
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';

const api = (local: string): string => `{${NS_AGENT_API}}${local}`;
const HASH = `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${MANIFEST_HASH.value}</hash>`;
const SCHEMA_JSON =
  '{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}';

function schemaXml(attributes: string, content: string): string {
  return `<schema xmlns='${NS_AGENT_API}' ${attributes}>${content}</schema>`;
}

const GOOD_ATTRIBUTES =
  "direction='input' media-type='application/schema+json' tool='forecast.get' version='1.4.0'";
const GOOD_CONTENT = `<manifest-hash>${HASH}</manifest-hash><schema-hash>${HASH}</schema-hash><json>{}</json>`;

describe('schema-request and schema', () => {
  it('round-trip, tool names with whitespace and markup included (interp-22)', () => {
    expectRoundTrip(buildSchemaRequest, parseSchemaRequest, {
      tool: 'forecast.get',
      version: '1.4.0',
      direction: 'input',
      manifestHash: MANIFEST_HASH,
    });
    expectRoundTrip(buildSchema, parseSchema, {
      tool: 'a\tb\nc\r<&>\'"',
      version: '1.4.0',
      direction: 'output',
      manifestHash: MANIFEST_HASH,
      schemaHash: SCHEMA_HASH,
      json: SCHEMA_JSON,
    });
  });

  it.each(
    titled([
      [
        parseSchemaRequest,
        `<schema-request xmlns='${NS_AGENT_API}' direction='both' tool='t' version='1'>${HASH}</schema-request>`,
        { rule: 'invalid-attribute', element: api('schema-request'), attribute: 'direction' },
      ],
      [
        parseSchemaRequest,
        `<schema-request xmlns='${NS_AGENT_API}' direction='input' tool='' version='1'>${HASH}</schema-request>`,
        { rule: 'invalid-tool-name', element: api('schema-request'), attribute: 'tool' },
      ],
      [
        parseSchemaRequest,
        `<schema-request xmlns='${NS_AGENT_API}' direction='input' tool='t' version='1'/>`,
        { rule: 'missing-child', element: api('schema-request') },
      ],
      [
        parseSchema,
        schemaXml(GOOD_ATTRIBUTES.replace('schema+json', 'json'), GOOD_CONTENT),
        { rule: 'media-type', element: api('schema'), attribute: 'media-type' },
      ],
      [
        parseSchema,
        schemaXml(
          GOOD_ATTRIBUTES,
          `<schema-hash>${HASH}</schema-hash><manifest-hash>${HASH}</manifest-hash><json>{}</json>`,
        ),
        { rule: 'child-order', element: api('schema') },
      ],
      [
        parseSchema,
        schemaXml(GOOD_ATTRIBUTES, `<manifest-hash>${HASH}</manifest-hash><json>{}</json>`),
        { rule: 'missing-child', element: api('schema') },
      ],
      [
        parseSchema,
        schemaXml(GOOD_ATTRIBUTES, `<manifest-hash>${HASH}</manifest-hash><schema-hash/><json>{}</json>`),
        { rule: 'missing-child', element: api('schema-hash') },
      ],
      [
        parseSchema,
        schemaXml(GOOD_ATTRIBUTES.replace("version='1.4.0'", ''), GOOD_CONTENT),
        { rule: 'missing-attribute', element: api('schema'), attribute: 'version' },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build an illegal tool name or direction', () => {
    const request = { tool: 't', version: '1', direction: 'input', manifestHash: MANIFEST_HASH } as const;
    expectBuildError(() => buildSchemaRequest({ ...request, tool: '' }), {
      rule: 'invalid-tool-name',
      element: api('schema-request'),
      attribute: 'tool',
    });
    expectBuildError(() => buildSchemaRequest({ ...request, direction: 'sideways' as 'input' }), {
      rule: 'invalid-attribute',
      element: api('schema-request'),
      attribute: 'direction',
    });
  });
});
