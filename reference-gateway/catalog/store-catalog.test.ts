import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import type { Hash } from '../../protocol/stanza/index.ts';
import { loadFixtureWorld } from '../config/fixture-world.ts';
import { DEFAULT_LIMITS } from '../config/limits.ts';
import { compileAccessPolicy, type AccessPolicy } from '../policy/access-policy.ts';
import type { AcceptedManifest } from '../registration/manifest-intake.ts';
import { Registry } from '../registration/registry.ts';
import { provisionWorld } from '../registration/world-provisioning.ts';
import { REFERENCE_WORLD } from '../registration/test-support/manifests.ts';
import type { GatewayStore } from '../store/gateway-store.ts';
import { tempStoreDir, type TempStoreDir } from '../store/test-support/temp-store.ts';
import type { Requester } from './catalog.ts';
import { CatalogIntegrityError, StoreCatalog } from './store-catalog.ts';

function requester(bareJid: string): Requester {
  return { fullJid: `${bareJid}/res`, bareJid, domain: bareJid.slice(bareJid.indexOf('@') + 1) };
}

const BOB = requester('bob@server.example');
const ALICE = requester('alice@example.com');
const CAROL = requester('carol@example.com');
const MALLORY = requester('mallory@hostile.example');

let dir: TempStoreDir;
let store: GatewayStore;
let policy: AccessPolicy;
let catalog: StoreCatalog;

beforeAll(async () => {
  dir = tempStoreDir();
  store = dir.open();
  await provisionWorld(store, loadFixtureWorld(REFERENCE_WORLD), DEFAULT_LIMITS);
  policy = compileAccessPolicy({
    localDomains: ['server.example'],
    localDefaults: { see: false, invoke: false },
    ...store.policy.load(),
  });
  catalog = new StoreCatalog(store, () => policy);
});
afterAll(() => {
  dir.remove();
});

describe('visibleEndpoints (#list-agents, #rules, #security)', () => {
  it.each([
    [
      BOB,
      [
        'calendar@agents.example',
        'conformance@agents.example',
        'toolbox@agents.example',
        'translator@agents.example',
        'weather@agents.example',
        // U+FA0E and U+20000: after every ASCII JID in octet order (UTF-16 would put U+20000 first).
        '\ufa0e@agents.example',
        '\u{20000}@agents.example',
      ],
    ],
    [
      ALICE,
      [
        'calendar@agents.example',
        'conformance@agents.example',
        'toolbox@agents.example',
        'vault@agents.example',
        'weather@agents.example',
        // U+FA0E and U+20000: after every ASCII JID in octet order (UTF-16 would put U+20000 first).
        '\ufa0e@agents.example',
        '\u{20000}@agents.example',
      ],
    ],
    [CAROL, ['weather@agents.example']],
    [MALLORY, []],
  ])('%o sees only its visible, active endpoints, in octet order', (who, expected) => {
    const endpoints = catalog.visibleEndpoints(who);
    expect(endpoints.map((e) => e.jid)).toEqual(expected);
    for (const endpoint of endpoints) expect(endpoint.active.jid).toBe(endpoint.jid);
  });

  it('serves the active version with its registered bytes and hash', () => {
    const weather = catalog.visibleEndpoints(BOB).find((e) => e.jid === 'weather@agents.example');
    expect(weather?.active.version).toBe('1.4.0');
    expect(weather?.active.document.hash.value).toBe('fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=');
    expect(
      weather?.active.document.bytes.equals(canonicalDocument(weather.active.manifest as never).bytes),
    ).toBe(true);
  });
});

describe('visibleEndpoint: hidden, inactive and nonexistent alike (#errors, interp-19, interp-23)', () => {
  it('finds a visible endpoint, also by a JID in another case', () => {
    expect(catalog.visibleEndpoint(BOB, 'weather@agents.example')?.active.version).toBe('1.4.0');
    expect(catalog.visibleEndpoint(BOB, 'Weather@Agents.Example')?.jid).toBe('weather@agents.example');
  });

  it('answers undefined for hidden, deactivated, nonexistent and malformed JIDs', () => {
    expect(catalog.visibleEndpoint(BOB, 'vault@agents.example')).toBeUndefined();
    expect(catalog.visibleEndpoint(ALICE, 'vault@agents.example')).toBeDefined();
    expect(catalog.visibleEndpoint(ALICE, 'archive@agents.example')).toBeUndefined();
    expect(catalog.visibleEndpoint(BOB, 'nothing@agents.example')).toBeUndefined();
    expect(catalog.visibleEndpoint(BOB, 'weather@agents.example/resource')).toBeUndefined();
  });

  it('reads the store and asks the policy once each, whether the endpoint is hidden or missing', () => {
    const reads = vi.spyOn(store.registrations, 'activeVersionPin');
    const checks = vi.spyOn(policy, 'canSee');
    try {
      for (const jid of ['vault@agents.example', 'nothing@agents.example']) {
        reads.mockClear();
        checks.mockClear();
        expect(catalog.visibleEndpoint(BOB, jid)).toBeUndefined();
        expect([reads.mock.calls.length, checks.mock.calls.length]).toEqual([1, 1]);
      }
    } finally {
      reads.mockRestore();
      checks.mockRestore();
    }
  });
});

describe('visibleVersion (#manifest-retrieval)', () => {
  it('keeps an exact non-active version addressable to those who may see the endpoint', () => {
    expect(
      catalog.visibleVersion(ALICE, 'weather@agents.example', '2.0.0')?.tools.map((t) => t.name),
    ).toEqual(['alerts.list', 'forecast.get']);
    expect(catalog.visibleVersion(ALICE, 'archive@agents.example', '1.0.0')?.version).toBe('1.0.0');
    expect(catalog.visibleVersion(CAROL, 'archive@agents.example', '1.0.0')).toBeUndefined();
  });

  it('answers undefined for unknown versions, hidden endpoints and malformed JIDs', () => {
    expect(catalog.visibleVersion(ALICE, 'weather@agents.example', '9.9.9')).toBeUndefined();
    expect(catalog.visibleVersion(BOB, 'vault@agents.example', '1.0.0')).toBeUndefined();
    expect(catalog.visibleVersion(BOB, 'not a jid@', '1.0.0')).toBeUndefined();
  });

  it('builds each record once', () => {
    const first = catalog.visibleVersion(ALICE, 'weather@agents.example', '1.4.0');
    expect(catalog.visibleEndpoint(ALICE, 'weather@agents.example')?.active).toBe(first);
  });

  it('reflects the store: a removed version is gone, a new activation shows', () => {
    const v2 = store.registrations.version('weather@agents.example', '2.0.0');
    expect(v2).toBeDefined();
    store.registrations.setActiveVersion('weather@agents.example', '2.0.0');
    expect(catalog.visibleEndpoint(BOB, 'weather@agents.example')?.active.version).toBe('2.0.0');
    store.registrations.setActiveVersion('weather@agents.example', '1.4.0');
    store.registrations.removeVersion('weather@agents.example', '2.0.0');
    expect(catalog.visibleVersion(ALICE, 'weather@agents.example', '2.0.0')).toBeUndefined();
  });
});

describe('reading only what changed (#list-agents, #registration-flow)', () => {
  const tables = (): GatewayStore['registrations'] => store.registrations;

  it('reads manifest bytes only for a version it has not built yet', () => {
    const spies = (['activeVersions', 'activeVersionRecord', 'version'] as const).map((method) =>
      vi.spyOn(tables(), method),
    );
    try {
      catalog.visibleEndpoints(ALICE);
      catalog.visibleEndpoint(ALICE, 'toolbox@agents.example');
      catalog.visibleVersion(ALICE, 'calendar@agents.example', '1.0.0');
      for (const spy of spies) spy.mockClear();
      expect(catalog.visibleEndpoints(ALICE)).toHaveLength(7);
      expect(catalog.visibleEndpoint(ALICE, 'toolbox@agents.example')?.active.version).toBe('3.0.0');
      expect(catalog.visibleVersion(ALICE, 'calendar@agents.example', '1.0.0')?.version).toBe('1.0.0');
      expect(spies.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0]);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe('every change shows on the next read', () => {
  const JID = 'next@agents.example';
  const manifestOf = (version: string): AcceptedManifest => {
    const manifest = { manifestSpecVersion: '0', agent: { jid: JID, name: 'next', version }, tools: [] };
    return {
      endpointJid: JID,
      version,
      manifest: manifest as never,
      document: canonicalDocument(manifest),
    };
  };
  const everyone = compileAccessPolicy({
    localDomains: ['server.example'],
    localDefaults: { see: true, invoke: true },
    grants: [],
    endpointPolicies: [],
  });

  it('registers, activates, deactivates and removes, seen by the listing and the lookups', () => {
    const own = tempStoreDir();
    try {
      const changed = own.open();
      const registry = new Registry(changed);
      const fresh = new StoreCatalog(changed, () => everyone);
      const listed = (): string[] => fresh.visibleEndpoints(BOB).map((e) => `${e.jid} ${e.active.version}`);
      const hash = (version: string): Hash => manifestOf(version).document.hash;

      expect(registry.register(manifestOf('1')).ok).toBe(true);
      expect(listed()).toEqual([]);
      expect(fresh.visibleEndpoint(BOB, JID)).toBeUndefined();
      expect(fresh.visibleVersion(BOB, JID, '1')?.version).toBe('1');

      expect(registry.activate(JID, '1', hash('1')).ok).toBe(true);
      expect(listed()).toEqual([`${JID} 1`]);
      expect(fresh.visibleEndpoint(BOB, JID)?.active.version).toBe('1');

      expect(registry.register(manifestOf('2')).ok).toBe(true);
      expect(registry.activate(JID, '2', hash('2')).ok).toBe(true);
      expect(listed()).toEqual([`${JID} 2`]);
      expect(fresh.visibleEndpoint(BOB, JID)?.active.version).toBe('2');

      expect(registry.deactivate(JID).ok).toBe(true);
      expect(listed()).toEqual([]);
      expect(fresh.visibleEndpoint(BOB, JID)).toBeUndefined();
      expect(fresh.visibleVersion(BOB, JID, '2')?.version).toBe('2');

      expect(registry.removeVersion(JID, '1').ok).toBe(true);
      expect(fresh.visibleVersion(BOB, JID, '1')).toBeUndefined();
      expect(registry.activate(JID, '2', hash('2')).ok).toBe(true);
      expect(listed()).toEqual([`${JID} 2`]);

      expect(registry.removeEndpoint(JID).ok).toBe(true);
      expect(listed()).toEqual([]);
      expect(fresh.visibleEndpoint(BOB, JID)).toBeUndefined();
      expect(fresh.visibleVersion(BOB, JID, '2')).toBeUndefined();

      // Restored with the same bytes (interp-24): served again, from the record already built.
      expect(registry.register(manifestOf('2')).ok).toBe(true);
      expect(registry.activate(JID, '2', hash('2')).ok).toBe(true);
      expect(listed()).toEqual([`${JID} 2`]);
    } finally {
      own.remove();
    }
  });

  it('sees what another connection to the database committed', () => {
    const own = tempStoreDir();
    try {
      const changed = own.open();
      const registry = new Registry(changed);
      const fresh = new StoreCatalog(changed, () => everyone);
      registry.register(manifestOf('1'));
      registry.activate(JID, '1', manifestOf('1').document.hash);
      expect(fresh.visibleEndpoints(BOB).map((e) => e.jid)).toEqual([JID]);
      const operator = new Database(own.path);
      try {
        operator.prepare('DELETE FROM active_versions WHERE endpoint_jid = ?').run(JID);
      } finally {
        operator.close();
      }
      expect(fresh.visibleEndpoints(BOB)).toEqual([]);
      expect(fresh.visibleEndpoint(BOB, JID)).toBeUndefined();
    } finally {
      own.remove();
    }
  });
});

describe('integrity', () => {
  it('refuses to serve stored bytes that do not match their hash', () => {
    const other = tempStoreDir();
    try {
      const corrupt = other.open();
      const document = canonicalDocument({
        manifestSpecVersion: '0',
        agent: { jid: 'x@agents.example', name: 'x', version: '1' },
        tools: [],
      });
      corrupt.registrations.insertVersion({
        jid: 'x@agents.example',
        version: '1',
        canonicalJson: document.bytes,
        hash: { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' },
      });
      const everyone = compileAccessPolicy({
        localDomains: ['server.example'],
        localDefaults: { see: true, invoke: true },
        grants: [],
        endpointPolicies: [],
      });
      const corruptCatalog = new StoreCatalog(corrupt, () => everyone);
      expect(() => corruptCatalog.visibleVersion(BOB, 'x@agents.example', '1')).toThrow(
        CatalogIntegrityError,
      );
    } finally {
      other.remove();
    }
  });

  it('lists around a corrupt version the requester may not see, as before it was built', () => {
    const other = tempStoreDir();
    try {
      const mixed = other.open();
      const good = canonicalDocument({
        manifestSpecVersion: '0',
        agent: { jid: 'y@agents.example', name: 'y', version: '1' },
        tools: [],
      });
      mixed.registrations.insertVersion({
        jid: 'y@agents.example',
        version: '1',
        canonicalJson: good.bytes,
        hash: good.hash,
      });
      mixed.registrations.insertVersion({
        jid: 'x@agents.example',
        version: '1',
        canonicalJson: good.bytes,
        hash: { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' },
      });
      mixed.registrations.setActiveVersion('y@agents.example', '1');
      mixed.registrations.setActiveVersion('x@agents.example', '1');
      const onlyY = compileAccessPolicy({
        localDomains: ['server.example'],
        localDefaults: { see: false, invoke: false },
        grants: [
          {
            subjectKind: 'domain',
            subject: 'server.example',
            action: 'see',
            endpoint: 'y@agents.example',
            tool: null,
          },
          { subjectKind: 'domain', subject: 'example.com', action: 'see', endpoint: null, tool: null },
        ],
        endpointPolicies: [],
      });
      const mixedCatalog = new StoreCatalog(mixed, () => onlyY);
      expect(mixedCatalog.visibleEndpoints(BOB).map((e) => e.jid)).toEqual(['y@agents.example']);
      expect(() => mixedCatalog.visibleEndpoints(CAROL)).toThrow(CatalogIntegrityError);
      expect(mixedCatalog.visibleEndpoints(BOB).map((e) => e.jid)).toEqual(['y@agents.example']);
    } finally {
      other.remove();
    }
  });

  it('the database file holds exactly the canonical bytes', () => {
    const db = new Database(dir.path, { readonly: true });
    try {
      const row = db
        .prepare(
          "SELECT canonical_json FROM manifest_versions WHERE endpoint_jid = 'weather@agents.example' AND version = '1.4.0'",
        )
        .get() as { canonical_json: Buffer };
      expect(row.canonical_json.toString('utf8').startsWith('{"agent":{"description":')).toBe(true);
    } finally {
      db.close();
    }
  });
});
