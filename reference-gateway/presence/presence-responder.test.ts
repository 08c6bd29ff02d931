// Presence decisions, values in and stanzas out: what a visible endpoint answers, and that hidden,
// deactivated and nonexistent endpoints (and the gateway JID) all give the same non-answer.
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { serialize } from '../../protocol/stanza/index.ts';
import type { ManifestRecord, Requester, VisibleEndpoint } from '../catalog/catalog.ts';
import { respondToPresence, type PresenceContext } from './presence-responder.ts';

const GATEWAY = 'agents.example';

function requester(fullJid: string): Requester {
  const bareJid = fullJid.slice(0, fullJid.indexOf('/'));
  return { fullJid, bareJid, domain: bareJid.slice(bareJid.indexOf('@') + 1) };
}

const BOB = requester('bob@server.example/desk');
const ALICE = requester('alice@example.com/laptop');

/** weather is visible to bob and alice; vault to alice only; everything else to nobody. */
const VISIBLE: Readonly<Record<string, readonly string[]>> = {
  'bob@server.example': ['weather@agents.example'],
  'alice@example.com': ['weather@agents.example', 'vault@agents.example'],
};

const asked: string[] = [];
const context: PresenceContext = {
  gatewayJid: GATEWAY,
  catalog: {
    visibleEndpoint(who: Requester, jid: string): VisibleEndpoint | undefined {
      asked.push(`${who.bareJid} ${jid}`);
      return VISIBLE[who.bareJid]?.includes(jid) === true
        ? { jid, active: {} as unknown as ManifestRecord }
        : undefined;
    },
  },
};

function answer(type: string | undefined, to: string, who: Requester = BOB, from = who.fullJid): string[] {
  return respondToPresence({ type, to, from, requester: who }, context).map((stanza: Element) =>
    serialize(stanza),
  );
}

describe('presence to a visible endpoint', () => {
  it('approves a subscription with subscribed, then available presence, to the bare JID', () => {
    expect(answer('subscribe', 'weather@agents.example')).toEqual([
      "<presence from='weather@agents.example' to='bob@server.example' type='subscribed'/>",
      "<presence from='weather@agents.example' to='bob@server.example'/>",
    ]);
  });

  it('answers a probe with available presence to the prober', () => {
    expect(answer('probe', 'weather@agents.example')).toEqual([
      "<presence from='weather@agents.example' to='bob@server.example/desk'/>",
    ]);
    // A server probes from the bare JID.
    expect(answer('probe', 'weather@agents.example', BOB, 'bob@server.example')).toEqual([
      "<presence from='weather@agents.example' to='bob@server.example'/>",
    ]);
  });

  it('confirms an unsubscribe with unsubscribed and unavailable', () => {
    expect(answer('unsubscribe', 'weather@agents.example')).toEqual([
      "<presence from='weather@agents.example' to='bob@server.example' type='unsubscribed'/>",
      "<presence from='weather@agents.example' to='bob@server.example' type='unavailable'/>",
    ]);
  });

  it('answers at the normalized bare JID, also when addressed with case or a resource', () => {
    expect(answer('probe', 'Weather@Agents.Example/anything')).toEqual([
      "<presence from='weather@agents.example' to='bob@server.example/desk'/>",
    ]);
  });

  it('asks the catalog for this sender: what one may see, another may not', () => {
    expect(answer('subscribe', 'vault@agents.example', ALICE)[0]).toContain("type='subscribed'");
    expect(answer('subscribe', 'vault@agents.example', BOB)).toEqual([
      "<presence from='vault@agents.example' to='bob@server.example' type='unsubscribed'/>",
    ]);
  });
});

describe('presence to an endpoint the sender may not see', () => {
  // vault is hidden from bob; nobody@ does not exist; archive would be deactivated: the
  // catalog says undefined for all three, and so the answers must be byte-identical.
  const unseen = ['vault@agents.example', 'nobody@agents.example', 'archive@agents.example'];

  it.each([
    ['subscribe', "type='unsubscribed'"],
    ['probe', "type='unsubscribed'"],
  ])('answers %s with unsubscribed, identically for hidden and nonexistent', (type, expected) => {
    const answers = unseen.map((jid) => answer(type, jid).map((text) => text.replace(jid, 'JID')));
    expect(answers[0]).toHaveLength(1);
    expect(answers[0]?.[0]).toContain(expected);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
  });

  it('ignores unsubscribe, as RFC 6121 §8.5.1 ignores it for a JID without an account', () => {
    for (const jid of unseen) expect(answer('unsubscribe', jid)).toEqual([]);
  });
});

describe('presence to the gateway JID', () => {
  it('declines subscriptions and probes the way an endpoint without presence does', () => {
    expect(answer('subscribe', GATEWAY)).toEqual([
      "<presence from='agents.example' to='bob@server.example' type='unsubscribed'/>",
    ]);
    expect(answer('probe', GATEWAY, ALICE)).toEqual([
      "<presence from='agents.example' to='alice@example.com' type='unsubscribed'/>",
    ]);
    expect(answer('unsubscribe', GATEWAY)).toEqual([]);
  });

  it('never asks the catalog about it', () => {
    asked.length = 0;
    answer('subscribe', GATEWAY);
    expect(asked).toEqual([]);
  });
});

describe('presence that needs no answer', () => {
  it.each([undefined, 'unavailable', 'subscribed', 'unsubscribed', 'error', 'bogus'])(
    'ignores type %s, also at a visible endpoint',
    (type) => {
      expect(answer(type, 'weather@agents.example')).toEqual([]);
    },
  );

  it('ignores addresses that are not ours or not JIDs', () => {
    expect(answer('subscribe', 'weather@elsewhere.example')).toEqual([]);
    expect(answer('subscribe', 'sub.agents.example')).toEqual([]);
    expect(answer('subscribe', 'a@@agents.example')).toEqual([]);
  });
});
