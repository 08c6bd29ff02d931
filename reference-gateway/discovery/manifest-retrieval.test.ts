import { describe, expect, it } from 'vitest';
import { parseManifest, parseXml } from '../../protocol/stanza/index.ts';
import type { Manifest } from '../../protocol/stanza/index.ts';
import { ask, expectFault, expectIdenticalFaults, resultText } from './test-support/discovery-kit.ts';
import type { Ask } from './test-support/discovery-kit.ts';
import { JID, ROMEO, buildWorld } from './test-support/world.ts';

const world = await buildWorld();
const { catalog } = world;

const request = (version?: string): string =>
  `<manifest-request xmlns='urn:xmpp:agent-api:0'${version === undefined ? '' : ` version='${version}'`}/>`;

/** Through real XML text, as a client receives it. */
function retrieve(to: string, version?: string, extra: Partial<Ask> = {}): Manifest {
  return parseManifest(parseXml(resultText(ask(catalog, { to, xml: request(version), ...extra }))));
}

describe('manifest retrieval (#manifest-retrieval)', () => {
  it('serves the active version with its hash and exactly the canonical bytes', () => {
    const manifest = retrieve(JID.weather);
    expect(manifest.version).toBe('1.4.0');
    expect(manifest.hash).toEqual({ algo: 'sha-256', value: 'fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=' });
    expect(Buffer.from(manifest.json, 'utf8').equals(world.weather.document.bytes)).toBe(true);
    expect(resultText(ask(catalog, { to: JID.weather, xml: request() }))).toContain(
      "media-type='application/json'",
    );
  });

  it('serves an exact registered version, active or not', () => {
    const next = retrieve(JID.weather, '2.0.0');
    expect(next.version).toBe('2.0.0');
    expect(Buffer.from(next.json, 'utf8').equals(world.weatherNext.document.bytes)).toBe(true);
    expect(retrieve(JID.weather, '1.4.0').hash).toEqual(world.weather.document.hash);
  });

  it('serves a deactivated endpoint only by exact version (interp-23)', () => {
    expect(retrieve(JID.dormant, '1.0.0').hash).toEqual(world.dormant.document.hash);
    expectFault(ask(catalog, { to: JID.dormant, xml: request() }), 'item-not-found');
  });

  it('answers hidden, nonexistent, deactivated and unknown versions with one item-not-found', () => {
    expect(retrieve(JID.secret, undefined, { from: ROMEO }).hash).toEqual(world.secret.document.hash);
    const outcomes = [
      ask(catalog, { to: JID.secret, xml: request() }),
      ask(catalog, { to: JID.secret, xml: request('1.0.0') }),
      ask(catalog, { to: JID.missing, xml: request() }),
      ask(catalog, { to: JID.missing, xml: request('1.0.0') }),
      ask(catalog, { to: JID.dormant, xml: request() }),
      ask(catalog, { to: JID.weather, xml: request('9.9.9') }),
    ];
    expectIdenticalFaults(outcomes, 'item-not-found');
  });

  it('refuses a malformed request with bad-request, hidden or not', () => {
    const bad = [
      "<manifest-request xmlns='urn:xmpp:agent-api:0' version='a b'/>",
      "<manifest-request xmlns='urn:xmpp:agent-api:0'><x/></manifest-request>",
    ];
    const outcomes = [JID.weather, JID.secret, JID.missing].flatMap((to) =>
      bad.map((xml) => ask(catalog, { to, xml })),
    );
    expectIdenticalFaults(outcomes, 'bad-request');
  });
});
