/**
 * "fixtures": "admin-iq": the operator checklist generated from the fixture world (what
 * Administrative Provisioning cannot express), the cases' view of an unconfirmed item, and the
 * provisioning IQs the run sends and takes back.
 */
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';
import { StanzaErrorReply, type Caller } from '../harness/driver/index.ts';
import { canonicalDocument } from '../protocol/json/canonical.ts';
import type { JsonObject } from '../protocol/json/json-value.ts';
import {
  buildRegistered,
  parseRegister,
  serialize,
  type DefinedCondition,
} from '../protocol/stanza/index.ts';
import { inlineWorldFile } from '../protocol/fixture-world-file.ts';
import { MissingFixture } from '../suites/framework/verdicts.ts';
import { REFERENCE_WORLD_FILE, referenceWorldOf } from '../suites/fixtures/reference-world.ts';
import { operatorChecklist, provisionWorld, unconfirmedItems } from './admin-fixtures.ts';
import { checklistLines } from './run-session.ts';

const world = inlineWorldFile(REFERENCE_WORLD_FILE);
const roles = {
  local: 'bob@server.example',
  remote: 'alice@example.com',
  remotePeer: 'carol@example.com',
  denied: 'mallory@hostile.example',
  admin: 'admin@server.example',
};

describe('the operator checklist of the reference world', () => {
  const items = operatorChecklist(world);
  it('lists the grants, the hidden and restricted endpoints and every runtime, by stable ID', () => {
    const ids = items.map((item) => item.id);
    expect(ids).toContain('grants');
    expect(ids).toContain('hidden:vault@agents.example');
    expect(ids).toContain('restricted-invocation:translator@agents.example');
    expect(ids).toContain('runtime:conformance@agents.example');
    expect(ids.filter((id) => id.startsWith('runtime:'))).toHaveLength(9);
    expect(items.find((item) => item.id === 'grants')?.text).toMatch(/principal alice@example\.com: sees/);
  });

  it('is printed with each item marked done or not', () => {
    const open = unconfirmedItems(items, ['grants']);
    const lines = checklistLines(items, open);
    expect(lines[0]).toMatch(/fixturesConfirmed/);
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}\[x\] grants: /));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}\[ \] hidden:vault@agents\.example: /));
  });

  it('a decision that needs an unconfirmed item cannot be made (MissingFixture); confirmed, it can', () => {
    const pending = (confirmed: string[]) =>
      new Set(unconfirmedItems(items, confirmed).map((item) => item.id));
    const none = referenceWorldOf(world, roles, 'admin-iq', pending([]));
    expect(() => none.listedFor('local')).toThrow(MissingFixture);
    // The item by its ID and where the checklist is, never its text again (the grants run long).
    const grantsText = items.find((item) => item.id === 'grants')?.text ?? '';
    expect(() => none.listedFor('local')).toThrow(
      'operator checklist item grants is not confirmed (the checklist is printed at start and in conformance.md)',
    );
    expect(() => none.listedFor('local')).not.toThrow(grantsText);
    const grantsOnly = referenceWorldOf(world, roles, 'admin-iq', pending(['grants']));
    // The hidden endpoint matters to the local caller's "see everything" grant only.
    expect(() => grantsOnly.listedFor('local')).toThrow(/hidden:vault@agents\.example is not confirmed/);
    expect(grantsOnly.listedFor('remotePeer').map((endpoint) => endpoint.jid)).toEqual([
      'weather@agents.example',
    ]);
    const all = referenceWorldOf(world, roles, 'admin-iq', pending(items.map((item) => item.id)));
    expect(all.listedFor('local')).toEqual(referenceWorldOf(world, roles).listedFor('local'));
  });
});

/**
 * A stand-in administrator's caller in front of a gateway that knows no endpoint yet: it answers
 * each provisioning IQ as #registration-flow does and records what was sent, as the IQ type and
 * the payload's exact text. `refuseRemoval` answers remove-endpoint with not-allowed, as a
 * gateway that still retains a task of the endpoint does.
 */
function gatewayAdmin(refuseRemoval = false) {
  const sent: string[] = [];
  const addressees = new Set<string>();
  const registered = new Set<string>();
  const refuse = (to: string, condition: DefinedCondition): never => {
    throw new StanzaErrorReply(
      { caller: 'admin@server.example/run', requestId: 'p-1', to, requestXml: '' },
      { xml: '', from: to },
      { type: 'cancel', condition },
    );
  };
  const iq = (to: string, type: 'get' | 'set', payload: Element): Promise<Element | undefined> => {
    sent.push(`${type} ${serialize(payload)}`);
    addressees.add(to);
    const jid = String(payload.attrs['jid']);
    switch (payload.name) {
      case 'registration-status':
        return registered.has(jid) ? Promise.resolve(undefined) : refuse(to, 'item-not-found');
      case 'register': {
        const manifest = JSON.parse(parseRegister(payload).manifestJson) as JsonObject;
        const agent = manifest['agent'] as { jid: string; version: string };
        registered.add(agent.jid);
        const { hash } = canonicalDocument(manifest);
        return Promise.resolve(buildRegistered({ jid: agent.jid, version: agent.version, hash }));
      }
      case 'remove-endpoint':
        return refuseRemoval ? refuse(to, 'not-allowed') : Promise.resolve(undefined);
      default:
        return Promise.resolve(undefined);
    }
  };
  return { caller: { iq } as unknown as Caller, sent, addressees };
}

describe('provisionWorld', () => {
  const jid = 'fresh@agents.example';
  const manifest = { manifestSpecVersion: '0', agent: { jid, name: 'fresh', version: '1.0.0' }, tools: [] };
  const { hash } = canonicalDocument(manifest);
  const hashXml = `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${hash.value}</hash>`;
  const oneEndpoint = { endpoints: [{ jid, versions: [{ manifest }], active: '1.0.0' }] };

  it('registers and activates a new endpoint, then removes it whole', async () => {
    const { caller, sent, addressees } = gatewayAdmin();
    const provisioned = await provisionWorld(caller, 'agents.example', oneEndpoint);
    expect(provisioned).toMatchObject({ problems: [], registered: 1, activated: 1 });
    expect(await provisioned.cleanup()).toEqual([]);
    expect(sent).toEqual([
      `get <registration-status xmlns='urn:xmpp:agent-api:0' jid='${jid}'/>`,
      `set <register xmlns='urn:xmpp:agent-api:0'><manifest media-type='application/json'>${JSON.stringify(manifest)}</manifest></register>`,
      `set <activate xmlns='urn:xmpp:agent-api:0' jid='${jid}' version='1.0.0'>${hashXml}</activate>`,
      `set <remove-endpoint xmlns='urn:xmpp:agent-api:0' jid='${jid}'/>`,
    ]);
    expect([...addressees]).toEqual(['agents.example']);
  });

  it('deactivates an endpoint the gateway will not remove yet, and says so', async () => {
    const { caller, sent } = gatewayAdmin(true);
    const provisioned = await provisionWorld(caller, 'agents.example', oneEndpoint);
    const failures = await provisioned.cleanup();
    expect(failures).toEqual([
      expect.stringMatching(/^remove-endpoint fresh@agents\.example: refused with not-allowed/),
    ]);
    expect(sent.slice(3)).toEqual([
      `set <remove-endpoint xmlns='urn:xmpp:agent-api:0' jid='${jid}'/>`,
      `set <deactivate xmlns='urn:xmpp:agent-api:0' jid='${jid}'/>`,
    ]);
  });
});
