import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Hash } from '../../protocol/stanza/index.ts';
import { DEFAULT_LIMITS } from '../config/limits.ts';
import type { GatewayStore } from '../store/gateway-store.ts';
import { tempStoreDir, type TempStoreDir } from '../store/test-support/temp-store.ts';
import { intakeManifest, type AcceptedManifest } from './manifest-intake.ts';
import type { Outcome } from './registration-fault.ts';
import { Registry } from './registry.ts';
import { manifestText, type ManifestOptions } from './test-support/manifests.ts';

const WEATHER = 'weather@agents.example';

async function accepted(options: ManifestOptions | string = {}): Promise<AcceptedManifest> {
  const outcome = await intakeManifest(
    typeof options === 'string' ? options : manifestText(options),
    DEFAULT_LIMITS,
  );
  if (!outcome.ok) expect.fail(JSON.stringify(outcome.fault));
  return outcome.value;
}

function value<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) expect.fail(`refused: ${outcome.fault.reason}`);
  return outcome.value;
}

function reasonOf<T>(outcome: Outcome<T>): string {
  return outcome.ok ? 'ok' : `${outcome.fault.reason} ${outcome.fault.condition}/${outcome.fault.type}`;
}

let dir: TempStoreDir;
let store: GatewayStore;
let registry: Registry;
beforeEach(() => {
  dir = tempStoreDir();
  store = dir.open();
  registry = new Registry(store);
});
afterEach(() => {
  dir.remove();
});

describe('register: immutable (jid, version) (#registration-flow)', () => {
  it('creates a version, then confirms identical content idempotently with the same result', async () => {
    const first = value(registry.register(await accepted()));
    expect(first.effect).toBe('created');
    // Different formatting and member order: the same canonical bytes.
    const reformatted = await accepted(
      `{ "tools": [{"inputSchema":{"type":"object"},"name":"forecast.get"}],\n "agent": {"version":"1.0.0","name":"weather","jid":"weather@agents.example"}, "manifestSpecVersion": "0" }`,
    );
    const again = value(registry.register(reformatted));
    expect(again.effect).toBe('unchanged');
    expect(again.registered).toEqual(first.registered);
  });

  it('refuses different content under a registered version with conflict', async () => {
    value(registry.register(await accepted()));
    expect(reasonOf(registry.register(await accepted({ title: 'Other' })))).toBe(
      'version-conflict conflict/cancel',
    );
  });

  it('a manifest differing only in JID case conflicts (interp-25)', async () => {
    const first = value(registry.register(await accepted()));
    expect(first.registered.jid).toBe(WEATHER);
    expect(reasonOf(registry.register(await accepted({ jid: 'Weather@agents.example' })))).toBe(
      'version-conflict conflict/cancel',
    );
  });

  it('a new version is a new immutable manifest, with no semantic-version ordering', async () => {
    value(registry.register(await accepted({ version: '2.0.0' })));
    value(registry.register(await accepted({ version: '10.0.0' })));
    expect(value(registry.status(WEATHER)).versions.map((v) => v.id)).toEqual(['10.0.0', '2.0.0']);
  });
});

describe('activate, deactivate, status', () => {
  it('activates an exact version after checking its hash', async () => {
    const { registered } = value(registry.register(await accepted()));
    expect(value(registry.activate(WEATHER, '1.0.0', registered.hash))).toEqual({
      jid: WEATHER,
      version: '1.0.0',
    });
    expect(store.registrations.activeVersion(WEATHER)).toBe('1.0.0');
  });

  it('refuses a wrong hash or another algorithm with conflict, an unknown version with item-not-found', async () => {
    const { registered } = value(registry.register(await accepted()));
    const wrong: Hash = { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' };
    expect(reasonOf(registry.activate(WEATHER, '1.0.0', wrong))).toBe('hash-mismatch conflict/cancel');
    expect(reasonOf(registry.activate(WEATHER, '1.0.0', { ...registered.hash, algo: 'sha-512' }))).toBe(
      'hash-mismatch conflict/cancel',
    );
    expect(reasonOf(registry.activate(WEATHER, '9.9.9', registered.hash))).toBe(
      'unknown-version item-not-found/cancel',
    );
    expect(reasonOf(registry.activate('nobody@agents.example', '1.0.0', registered.hash))).toBe(
      'unknown-version item-not-found/cancel',
    );
    expect(store.registrations.activeVersion(WEATHER)).toBeUndefined();
  });

  it('deactivates without deleting versions, idempotently', async () => {
    const { registered } = value(registry.register(await accepted()));
    value(registry.activate(WEATHER, '1.0.0', registered.hash));
    expect(value(registry.deactivate(WEATHER))).toEqual({ jid: WEATHER });
    expect(value(registry.deactivate(WEATHER))).toEqual({ jid: WEATHER });
    expect(store.registrations.activeVersion(WEATHER)).toBeUndefined();
    expect(store.registrations.versions(WEATHER)).toHaveLength(1);
    expect(reasonOf(registry.deactivate('nobody@agents.example'))).toBe(
      'unknown-endpoint item-not-found/cancel',
    );
  });

  it('reports the active version, every version with its hash, and which may be removed', async () => {
    const one = value(registry.register(await accepted({ version: '1' }))).registered;
    const two = value(registry.register(await accepted({ version: '2', title: 'Two' }))).registered;
    const three = value(registry.register(await accepted({ version: '3', title: 'Three' }))).registered;
    value(registry.activate(WEATHER, '1', one.hash));
    store.registrations.retain(WEATHER, '2', 'task:t');
    expect(value(registry.status(WEATHER))).toEqual({
      jid: WEATHER,
      versions: [
        { id: '1', active: true, removable: false, hash: one.hash },
        { id: '2', active: false, removable: false, hash: two.hash },
        { id: '3', active: false, removable: true, hash: three.hash },
      ],
    });
    expect(reasonOf(registry.status('nobody@agents.example'))).toBe('unknown-endpoint item-not-found/cancel');
  });
});

describe('removal and tombstones', () => {
  it('refuses to remove the active or a retained version with not-allowed (interp-24)', async () => {
    const { registered } = value(registry.register(await accepted({ version: '1' })));
    value(registry.register(await accepted({ version: '2' })));
    value(registry.activate(WEATHER, '1', registered.hash));
    store.registrations.retain(WEATHER, '2', 'task:t');
    expect(reasonOf(registry.removeVersion(WEATHER, '1'))).toBe('version-active not-allowed/cancel');
    expect(reasonOf(registry.removeVersion(WEATHER, '2'))).toBe('version-retained not-allowed/cancel');
    expect(reasonOf(registry.removeVersion(WEATHER, '3'))).toBe('unknown-version item-not-found/cancel');
    store.registrations.release(WEATHER, '2', 'task:t');
    expect(value(registry.removeVersion(WEATHER, '2'))).toEqual({ jid: WEATHER, version: '2' });
  });

  it('leaves a tombstone: identical content may be restored, different content conflicts forever', async () => {
    value(registry.register(await accepted()));
    value(registry.removeVersion(WEATHER, '1.0.0'));
    expect(reasonOf(registry.register(await accepted({ title: 'Different' })))).toBe(
      'tombstone-conflict conflict/cancel',
    );
    expect(value(registry.register(await accepted())).effect).toBe('restored');
    value(registry.removeVersion(WEATHER, '1.0.0'));
    expect(reasonOf(registry.register(await accepted({ title: 'Different' })))).toBe(
      'tombstone-conflict conflict/cancel',
    );
  });

  it('remove-endpoint deactivates and tombstones every version; the tombstones outlive it', async () => {
    const { registered } = value(registry.register(await accepted({ version: '1' })));
    value(registry.register(await accepted({ version: '2' })));
    value(registry.activate(WEATHER, '1', registered.hash));
    expect(value(registry.removeEndpoint(WEATHER))).toEqual({ jid: WEATHER });
    expect(reasonOf(registry.status(WEATHER))).toBe('unknown-endpoint item-not-found/cancel');
    expect(reasonOf(registry.removeEndpoint(WEATHER))).toBe('unknown-endpoint item-not-found/cancel');
    expect(reasonOf(registry.register(await accepted({ version: '2', title: 'New' })))).toBe(
      'tombstone-conflict conflict/cancel',
    );
    expect(value(registry.register(await accepted({ version: '1' }))).effect).toBe('restored');
    expect(store.registrations.activeVersion(WEATHER)).toBeUndefined();
  });

  it('refuses remove-endpoint while any version is retained', async () => {
    value(registry.register(await accepted()));
    store.registrations.retain(WEATHER, '1.0.0', 'task:t');
    expect(reasonOf(registry.removeEndpoint(WEATHER))).toBe('endpoint-retained not-allowed/cancel');
    expect(store.registrations.versions(WEATHER)).toHaveLength(1);
  });
});

describe('restart', () => {
  it('keeps registrations, pointer and tombstones across reopen', async () => {
    const { registered } = value(registry.register(await accepted({ version: '1' })));
    value(registry.register(await accepted({ version: '2' })));
    value(registry.activate(WEATHER, '1', registered.hash));
    value(registry.removeVersion(WEATHER, '2'));
    const before = value(registry.status(WEATHER));
    store.close();

    const reopened = new Registry(dir.open());
    expect(value(reopened.status(WEATHER))).toEqual(before);
    expect(value(reopened.register(await accepted({ version: '1' }))).effect).toBe('unchanged');
    expect(reasonOf(reopened.register(await accepted({ version: '2', title: 'X' })))).toBe(
      'tombstone-conflict conflict/cancel',
    );
  });
});
