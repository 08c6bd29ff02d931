import { describe, expect, it } from 'vitest';
import { FEATURE, NODE_DIRECTORY, NS } from '../../protocol/namespaces.ts';
import { parseDiscoInfo } from '../../protocol/stanza/index.ts';
import {
  GATEWAY,
  ask,
  discoInfo,
  expectFault,
  resultOf,
  withSettings,
} from './test-support/discovery-kit.ts';
import { MemoryCatalog } from './test-support/memory-catalog.ts';

const catalog = new MemoryCatalog();

describe('gateway information (#gateway-info)', () => {
  it('has the agent-gateway identity and exactly the features that are switched on', () => {
    const info = parseDiscoInfo(resultOf(ask(catalog, { to: GATEWAY, xml: discoInfo() })));
    expect(info.identities).toEqual([
      { category: 'automation', type: 'agent-gateway', name: 'Example Agent Gateway' },
    ]);
    expect(info.features).toEqual([
      NS.discoInfo,
      NS.discoItems,
      NS.rsm,
      FEATURE.directory,
      NS.search,
      NS.dataForms,
      FEATURE.admin,
      NS.ping,
    ]);
    expect(info.forms).toEqual([]);
  });

  it('advertises search, admin, self-registration and ping only when enabled', () => {
    const bare = withSettings({
      searchEnabled: false,
      gatewayFeatures: { admin: false, selfRegister: false, ping: false },
    });
    const minimal = parseDiscoInfo(resultOf(ask(catalog, { to: GATEWAY, xml: discoInfo(), settings: bare })));
    expect(minimal.features).toEqual([NS.discoInfo, NS.discoItems, NS.rsm, FEATURE.directory]);
    const full = withSettings({ gatewayFeatures: { admin: true, selfRegister: true, ping: true } });
    const all = parseDiscoInfo(resultOf(ask(catalog, { to: GATEWAY, xml: discoInfo(), settings: full })));
    expect(all.features).toContain(FEATURE.selfRegister);
  });

  it('answers the directory node with the agent-directory identity (#list-agents)', () => {
    const info = parseDiscoInfo(resultOf(ask(catalog, { to: GATEWAY, xml: discoInfo(NODE_DIRECTORY) })));
    expect(info).toEqual({
      node: NODE_DIRECTORY,
      identities: [{ category: 'automation', type: 'agent-directory' }],
      features: [NS.discoInfo, NS.discoItems],
      forms: [],
    });
  });

  it('answers unknown gateway nodes with item-not-found', () => {
    for (const node of ['urn:xmpp:agent-tools:0#1.4.0', FEATURE.endpoint, '']) {
      expectFault(ask(catalog, { to: GATEWAY, xml: discoInfo(node) }), 'item-not-found');
    }
  });
});
