import { describe, expect, it } from 'vitest';
import { parseSchema, parseXml } from '../../protocol/stanza/index.ts';
import type { ToolSchema } from '../../protocol/stanza/index.ts';
import { ask, expectFault, expectIdenticalFaults, resultText } from './test-support/discovery-kit.ts';
import type { Ask } from './test-support/discovery-kit.ts';
import { JID, ROMEO, buildWorld } from './test-support/world.ts';

const world = await buildWorld();
const { catalog } = world;
const FULL_HASH = 'fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=';
/** The spec examples' hash: the minimal manifest's, stale for the full one (interp-01). */
const MINIMAL_HASH = 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=';

interface SchemaAsk {
  readonly tool?: string;
  readonly version?: string;
  readonly direction?: string;
  readonly hash?: string;
  readonly algo?: string;
}

const request = ({
  tool = 'forecast.get',
  version = '1.4.0',
  direction = 'input',
  hash = FULL_HASH,
  algo = 'sha-256',
}: SchemaAsk): string =>
  `<schema-request xmlns='urn:xmpp:agent-api:0' direction='${direction}' tool='${tool}' version='${version}'>` +
  `<hash xmlns='urn:xmpp:hashes:2' algo='${algo}'>${hash}</hash></schema-request>`;

function retrieve(to: string, schema: SchemaAsk, extra: Partial<Ask> = {}): ToolSchema {
  return parseSchema(parseXml(resultText(ask(catalog, { to, xml: request(schema), ...extra }))));
}

describe('schema retrieval (#schemas)', () => {
  it('serves the canonical input schema with the manifest and schema hashes', () => {
    expect(retrieve(JID.weather, {})).toEqual({
      tool: 'forecast.get',
      version: '1.4.0',
      direction: 'input',
      manifestHash: { algo: 'sha-256', value: FULL_HASH },
      schemaHash: { algo: 'sha-256', value: 'XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=' },
      json: '{"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}',
    });
    expect(resultText(ask(catalog, { to: JID.weather, xml: request({}) }))).toContain(
      "media-type='application/schema+json'",
    );
  });

  it('serves the output schema when the tool declares one', () => {
    const output = retrieve(JID.weather, { direction: 'output' });
    expect(output.schemaHash.value).toBe('JK2ilcD8njJXVkTPU99lYYmhxbaGg3SKqalwaR1GOuA=');
    const [tool] = world.weather.tools;
    expect(Buffer.from(output.json, 'utf8').equals(tool?.outputSchema?.bytes ?? Buffer.alloc(0))).toBe(true);
  });

  it('answers a stale or foreign-algorithm manifest hash with conflict', () => {
    expectFault(ask(catalog, { to: JID.weather, xml: request({ hash: MINIMAL_HASH }) }), 'conflict');
    expectFault(ask(catalog, { to: JID.weather, xml: request({ algo: 'sha3-256' }) }), 'conflict');
    const nextHash = world.weatherNext.document.hash.value;
    expectFault(ask(catalog, { to: JID.weather, xml: request({ hash: nextHash }) }), 'conflict');
    expect(retrieve(JID.weather, { version: '2.0.0', hash: nextHash }).version).toBe('2.0.0');
  });

  it('answers unknown tools, absent output schemas, unknown versions, hidden and nonexistent endpoints alike', () => {
    const nextHash = world.weatherNext.document.hash.value;
    const secretHash = world.secret.document.hash.value;
    expect(retrieve(JID.secret, { version: '1.0.0', hash: secretHash }, { from: ROMEO }).tool).toBe(
      'forecast.get',
    );
    const outcomes = [
      ask(catalog, { to: JID.weather, xml: request({ tool: 'forecast.set' }) }),
      ask(catalog, {
        to: JID.weather,
        xml: request({ version: '2.0.0', hash: nextHash, direction: 'output' }),
      }),
      ask(catalog, { to: JID.weather, xml: request({ version: '9.9.9' }) }),
      ask(catalog, { to: JID.secret, xml: request({ version: '1.0.0', hash: secretHash }) }),
      ask(catalog, { to: JID.secret, xml: request({ version: '1.0.0', hash: MINIMAL_HASH }) }),
      ask(catalog, { to: JID.missing, xml: request({ version: '1.0.0', hash: secretHash }) }),
    ];
    expectIdenticalFaults(outcomes, 'item-not-found');
  });

  it('refuses malformed requests with bad-request before looking anything up', () => {
    const malformed = [
      request({ direction: 'sideways' }),
      request({ version: 'a b' }),
      request({ hash: 'not base64' }),
      "<schema-request xmlns='urn:xmpp:agent-api:0' direction='input' tool='x' version='1'/>",
    ];
    const outcomes = [JID.weather, JID.secret, JID.missing].flatMap((to) =>
      malformed.map((xml) => ask(catalog, { to, xml })),
    );
    expectIdenticalFaults(outcomes, 'bad-request');
  });
});
