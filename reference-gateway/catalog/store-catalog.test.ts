import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import { loadFixtureWorld } from '../config/fixture-world.ts';
import { DEFAULT_LIMITS } from '../config/limits.ts';
import { compileAccessPolicy, type AccessPolicy } from '../policy/access-policy.ts';
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
    const reads = vi.spyOn(store.registrations, 'activeVersionRecord');
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
