import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { StanzaErrorReply, type Caller } from '../harness/driver/index.ts';
import { inlineWorldFile } from '../protocol/fixture-world-file.ts';
import type { JsonObject } from '../protocol/json/json-value.ts';
import { REFERENCE_WORLD_FILE, referenceWorldOf } from '../suites/fixtures/reference-world.ts';
import type { ProvisionedWorld } from './admin-fixtures.ts';
import { checkProvisioned, checkWorldLoaded, FixturesNotInPlace } from './fixture-check.ts';

const roles = {
  local: 'bob@server.example',
  remote: 'alice@example.com',
  remotePeer: 'carol@example.com',
  denied: 'mallory@hostile.example',
  admin: 'admin@server.example',
};
const world = referenceWorldOf(inlineWorldFile(REFERENCE_WORLD_FILE), roles);

function provisioned(registered: number, problems: string[]): ProvisionedWorld {
  return { world: {}, problems, registered, activated: registered, cleanup: () => Promise.resolve([]) };
}

/** A caller whose disco#info gets a result from the JIDs in `known` and item-not-found elsewhere. */
function discoCaller(known: ReadonlySet<string>): { caller: Caller; asked: string[] } {
  const asked: string[] = [];
  const iq = (to: string, _type: string, _payload: Element): Promise<Element | undefined> => {
    asked.push(to);
    if (known.has(to)) return Promise.resolve(undefined);
    throw new StanzaErrorReply(
      { caller: 'bob@server.example/run', requestId: 'p-1', to, requestXml: '' },
      { xml: '', from: to },
      { type: 'cancel', condition: 'item-not-found' },
    );
  };
  return { caller: { iq } as unknown as Caller, asked };
}

describe('admin-iq provisioning', () => {
  it('stops the run when an operation was refused, listing what failed', () => {
    const problems = Array.from(
      { length: 7 },
      (_, index) => `register e${String(index)}@agents.example 1: forbidden`,
    );
    expect(() => {
      checkProvisioned(provisioned(2, problems), 'admin@server.example');
    }).toThrow(FixturesNotInPlace);
    expect(() => {
      checkProvisioned(provisioned(2, problems), 'admin@server.example');
    }).toThrow(
      /admin-iq provisioning as admin@server\.example failed \(7 operation\(s\) refused, 2 version\(s\) registered\):\n {2}register e0@agents\.example 1: forbidden\n[^]*\n {2}and 2 more\n/,
    );
  });

  it('stops the run when nothing was registered, even without a refusal', () => {
    expect(() => {
      checkProvisioned(provisioned(0, []), undefined);
    }).toThrow(/as \(no admin account\) registered nothing/);
  });

  it('lets a run go on when every operation went through', () => {
    checkProvisioned(provisioned(12, []), 'admin@server.example');
  });
});

describe('a world file the gateway must have loaded', () => {
  it('stops the run when no endpoint the local caller may see answers disco#info', async () => {
    const { caller, asked } = discoCaller(new Set());
    await expect(checkWorldLoaded(caller, world)).rejects.toThrow(
      /the gateway answers none of the \d+ active endpoint\(s\) .* \(\S+@agents\.example: <item-not-found\/>.*it did not load the world file/,
    );
    expect(asked).toEqual(world.listedFor('local').map((endpoint) => endpoint.jid));
  });

  it('lets a run go on once one endpoint answers: another refusing may be a bug the cases report', async () => {
    const [, second] = world.listedFor('local');
    if (second === undefined) throw new Error('the reference world lists two endpoints to the local caller');
    const { caller, asked } = discoCaller(new Set([second.jid]));
    await checkWorldLoaded(caller, world);
    expect(asked).toHaveLength(2);
  });

  it('stops the run on a world with no endpoint', async () => {
    const empty = referenceWorldOf(
      { ...(inlineWorldFile(REFERENCE_WORLD_FILE) as JsonObject), endpoints: [] },
      roles,
    );
    await expect(checkWorldLoaded(discoCaller(new Set()).caller, empty)).rejects.toThrow(/has no endpoint/);
  });
});
