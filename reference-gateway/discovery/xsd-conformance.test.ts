import { describe, expect, it } from 'vitest';
import { parseManifest, parseSchema, parseXml, serialize } from '../../protocol/stanza/index.ts';
import { validateElements } from '../../protocol/xsd/validator.ts';
import { ask, resultOf } from './test-support/discovery-kit.ts';
import type { Ask } from './test-support/discovery-kit.ts';
import { manifestJson, manifestRecord } from './test-support/memory-catalog.ts';
import { JID, ROMEO, buildWorld } from './test-support/world.ts';

const world = await buildWorld();
const AWKWARD = 'awkward@agents.example';
/** Markup characters, CR, "]]>" and astral text must all survive as canonical JSON in XML. */
const awkward = await manifestRecord(
  manifestJson({
    jid: AWKWARD,
    name: 'awkward',
    title: 'A <b>&amp; "quoted" ]]> \r\n 🌦 \u{10000}',
    tools: [
      {
        name: 'tab\there & <there>',
        description: "it's ]]> here",
        outputSchema: { type: 'object', description: '</json> & \u{E000}' },
      },
    ],
  }),
);
const catalog = world.catalog.add(awkward);

const manifestRequest = (version?: string): string =>
  `<manifest-request xmlns='urn:xmpp:agent-api:0'${version === undefined ? '' : ` version='${version}'`}/>`;

function schemaRequest(tool: string, version: string, direction: string, hash: string): string {
  const escaped = tool.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\t/g, '&#9;');
  return (
    `<schema-request xmlns='urn:xmpp:agent-api:0' direction='${direction}' tool='${escaped}' version='${version}'>` +
    `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${hash}</hash></schema-request>`
  );
}

describe('agent-api elements discovery produces (#schema-agent-api)', () => {
  it('validate against the normative XSD, in one batch', async () => {
    const requests: Ask[] = [
      { to: JID.weather, xml: manifestRequest() },
      { to: JID.weather, xml: manifestRequest('2.0.0') },
      { to: JID.dormant, xml: manifestRequest('1.0.0') },
      { to: JID.secret, xml: manifestRequest(), from: ROMEO },
      { to: AWKWARD, xml: manifestRequest() },
      {
        to: JID.weather,
        xml: schemaRequest('forecast.get', '1.4.0', 'input', world.weather.document.hash.value),
      },
      {
        to: JID.weather,
        xml: schemaRequest('forecast.get', '1.4.0', 'output', world.weather.document.hash.value),
      },
      {
        to: JID.weather,
        xml: schemaRequest('alerts.list', '2.0.0', 'input', world.weatherNext.document.hash.value),
      },
      {
        to: AWKWARD,
        xml: schemaRequest('tab\there & <there>', '1.0.0', 'input', awkward.document.hash.value),
      },
      {
        to: AWKWARD,
        xml: schemaRequest('tab\there & <there>', '1.0.0', 'output', awkward.document.hash.value),
      },
    ];
    const texts = requests.map((request) => serialize(resultOf(ask(catalog, request))));
    const served = parseManifest(parseXml(texts[4] ?? ''));
    expect(Buffer.from(served.json, 'utf8').equals(awkward.document.bytes)).toBe(true);
    const output = parseSchema(parseXml(texts[9] ?? ''));
    expect(
      Buffer.from(output.json, 'utf8').equals(awkward.tools[0]?.outputSchema?.bytes ?? Buffer.alloc(0)),
    ).toBe(true);
    const results = await validateElements(texts);
    expect(results.map((result, index) => ({ index, ...result }))).toEqual(
      texts.map((_text, index) => ({ index, valid: true, schema: 'agent-api' })),
    );
  });
});
