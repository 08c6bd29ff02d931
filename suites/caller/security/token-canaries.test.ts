// The credential canaries of security.bridge-keeps-client-credentials: fresh per seed, one per
// carrier, and found in a stanza only where the bridge copied one verbatim.
import { describe, expect, it } from 'vitest';

import type { RecordedStanza } from '../../../harness/fake-target/index.ts';
import { SeededRandom } from '../../framework/seeded-random.ts';
import type { CallerCaseContext } from '../framework/caller-context.ts';
import { canarySightings, credentialCanaries, headersOf } from './token-canaries.ts';

function canariesFor(seed: number) {
  return credentialCanaries({ random: new SeededRandom(seed) } as CallerCaseContext);
}

function stanza(kind: RecordedStanza['kind'], xml: string): RecordedStanza {
  return { kind, xml } as RecordedStanza;
}

describe('credential canaries', () => {
  it('replay from the seed, differ between seeds, and hold one secret per carrier', () => {
    const canaries = canariesFor(7);
    expect(canariesFor(7)).toEqual(canaries);
    expect(canariesFor(8).map((canary) => canary.secret)).not.toEqual(
      canaries.map((canary) => canary.secret),
    );
    expect(new Set(canaries.map((canary) => canary.secret)).size).toBe(3);
    expect(headersOf(canaries)).toEqual({
      Authorization: `Bearer ${canaries[0]?.secret ?? ''}`,
      'X-API-Key': canaries[1]?.secret,
      Cookie: `session=${canaries[2]?.secret ?? ''}`,
    });
  });

  it('are sighted where a stanza carries one verbatim, named by carrier, and nowhere else', () => {
    const [bearer, apiKey] = canariesFor(7);
    if (bearer === undefined || apiKey === undefined) throw new Error('three canaries');
    const clean = stanza(
      'disco-info',
      "<iq type='get'><query xmlns='http://jabber.org/protocol/disco#info'/></iq>",
    );
    const leaking = stanza(
      'invoke',
      `<iq type='set'><invoke><arguments>{"authorization":"${bearer.value}"}</arguments></invoke></iq>`,
    );
    const sightings = canarySightings([clean, leaking], canariesFor(7));
    expect(sightings.map(({ canary, stanza: seen }) => [canary.carrier, seen.kind])).toEqual([
      ['Authorization bearer token', 'invoke'],
    ]);
    expect(canarySightings([clean], canariesFor(7))).toEqual([]);
    expect(apiKey.secret).not.toBe(bearer.secret);
  });
});
