import { xml } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../harness/driver/index.ts';
import { NS } from '../../protocol/namespaces.ts';
import type { ReferenceWorld } from '../fixtures/reference-world.ts';
import { preflight } from './preflight.ts';
import { MissingFixture } from './verdicts.ts';

/** A caller whose every disco#info comes back with no features at all. */
const bareCaller = {
  iq: () => Promise.resolve(xml('query', { xmlns: NS.discoInfo })),
} as unknown as Caller;

describe('preflight', () => {
  it('leaves what an unconfirmed operator checklist item hides to the cases, instead of failing the run', async () => {
    const unconfirmed = (): never => {
      throw new MissingFixture('operator checklist item grants is not confirmed');
    };
    const world = { listedFor: unconfirmed, conformanceEndpoint: unconfirmed } as unknown as ReferenceWorld;
    const findings = await preflight({
      caller: bareCaller,
      gatewayJid: 'agents.example',
      claimed: new Set(['core-directory']),
      gatewayFeatures: new Set(),
      world,
    });
    // The gateway-level check still ran: the gateway advertises nothing Core Directory needs.
    expect(findings.map((finding) => finding.kind)).toContain('missing');
  });

  it('still fails on anything else a world lookup throws', async () => {
    const world = {
      listedFor: () => {
        throw new Error('broken world');
      },
    } as unknown as ReferenceWorld;
    await expect(
      preflight({
        caller: bareCaller,
        gatewayJid: 'agents.example',
        claimed: new Set(['core-directory']),
        gatewayFeatures: new Set(),
        world,
      }),
    ).rejects.toThrow('broken world');
  });
});
