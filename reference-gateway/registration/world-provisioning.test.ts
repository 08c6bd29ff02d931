import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../protocol/json/json-value.ts';
import { loadFixtureWorld, parseFixtureWorld, type FixtureWorld } from '../config/fixture-world.ts';
import { DEFAULT_LIMITS } from '../config/limits.ts';
import { tempStoreDir, type TempStoreDir } from '../store/test-support/temp-store.ts';
import { Registry } from './registry.ts';
import { manifestObject, REFERENCE_WORLD, type ManifestOptions } from './test-support/manifests.ts';
import { provisionWorld, WorldProvisioningError } from './world-provisioning.ts';

const WEATHER = 'weather@agents.example';

function world(endpoints: JsonObject[], grants: JsonValue[] = []): FixtureWorld {
  return parseFixtureWorld({ endpoints, grants }, { source: 'test world', baseDir: '/nonexistent' });
}

function endpoint(jid: string, versions: ManifestOptions[], extra: JsonObject = {}): JsonObject {
  return {
    jid,
    versions: versions.map((options) => ({ manifest: manifestObject({ jid, ...options }) })),
    ...extra,
  };
}

async function problemsOf(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WorldProvisioningError) return error.problems.map((p) => `${p.path}: ${p.message}`);
    throw error;
  }
  return expect.fail('expected a WorldProvisioningError');
}

let dir: TempStoreDir;
beforeEach(() => {
  dir = tempStoreDir();
});
afterEach(() => {
  dir.remove();
});

describe('the reference world (fixtures/worlds/reference.json)', () => {
  it('loads, and loading it again changes nothing, also after a restart', async () => {
    const reference = loadFixtureWorld(REFERENCE_WORLD);
    const store = dir.open();
    expect(await provisionWorld(store, reference, DEFAULT_LIMITS)).toEqual({
      created: 10,
      unchanged: 0,
      keptRemoved: 0,
      pointersApplied: 9,
      policyChanged: true,
    });
    const unchanged = { created: 0, unchanged: 10, keptRemoved: 0, pointersApplied: 0, policyChanged: false };
    expect(await provisionWorld(store, reference, DEFAULT_LIMITS)).toEqual(unchanged);
    store.close();
    const reopened = dir.open();
    expect(await provisionWorld(reopened, reference, DEFAULT_LIMITS)).toEqual(unchanged);
    expect(reopened.registrations.activeVersions().map((v) => `${v.jid} ${v.version}`)).toEqual([
      'calendar@agents.example 1.0.0',
      'conformance@agents.example 1.0.0',
      'toolbox@agents.example 3.0.0',
      'translator@agents.example 0.9.0',
      'vault@agents.example 1.0.0',
      'weather@agents.example 1.4.0',
      '﨎@agents.example 1.0.0',
      '𠀀@agents.example 1.0.0',
    ]);
    expect(reopened.registrations.versions('archive@agents.example')).toHaveLength(1);
    expect(reopened.registrations.version(WEATHER, '1.4.0')?.hash.value).toBe(
      'fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=',
    );
  });

  it('keeps what administrators changed since: pointers and removals survive a restart', async () => {
    const reference = loadFixtureWorld(REFERENCE_WORLD);
    const store = dir.open();
    await provisionWorld(store, reference, DEFAULT_LIMITS);
    const registry = new Registry(store);
    const v2 = store.registrations.version(WEATHER, '2.0.0');
    if (v2 === undefined) expect.fail('weather 2.0.0 missing');
    expect(registry.activate(WEATHER, '2.0.0', v2.hash).ok).toBe(true);
    expect(registry.removeVersion(WEATHER, '1.4.0').ok).toBe(true);
    expect(registry.deactivate('calendar@agents.example').ok).toBe(true);
    store.close();

    const reopened = dir.open();
    const report = await provisionWorld(reopened, reference, DEFAULT_LIMITS);
    expect(report).toMatchObject({ created: 0, keptRemoved: 1, pointersApplied: 0 });
    expect(reopened.registrations.activeVersion(WEATHER)).toBe('2.0.0');
    expect(reopened.registrations.version(WEATHER, '1.4.0')).toBeUndefined();
    expect(reopened.registrations.activeVersion('calendar@agents.example')).toBeUndefined();
  });
});

describe('world declarations', () => {
  it('applies a changed active declaration, and a null one deactivates', async () => {
    const store = dir.open();
    await provisionWorld(
      store,
      world([endpoint(WEATHER, [{ version: '1' }, { version: '2' }], { active: '1' })]),
      DEFAULT_LIMITS,
    );
    expect(store.registrations.activeVersion(WEATHER)).toBe('1');
    await provisionWorld(
      store,
      world([endpoint(WEATHER, [{ version: '1' }, { version: '2' }], { active: '2' })]),
      DEFAULT_LIMITS,
    );
    expect(store.registrations.activeVersion(WEATHER)).toBe('2');
    await provisionWorld(
      store,
      world([endpoint(WEATHER, [{ version: '1' }, { version: '2' }], { active: null })]),
      DEFAULT_LIMITS,
    );
    expect(store.registrations.activeVersion(WEATHER)).toBeUndefined();
  });

  it('replaces the previous world grants and overrides as a whole (grants fail closed)', async () => {
    const store = dir.open();
    const grant = { domain: 'example.com', see: ['*'] };
    await provisionWorld(store, world([endpoint(WEATHER, [{}], { hidden: true })], [grant]), DEFAULT_LIMITS);
    expect(store.policy.load()).toEqual({
      grants: [{ subjectKind: 'domain', subject: 'example.com', action: 'see', endpoint: null, tool: null }],
      endpointPolicies: [{ endpoint: WEATHER, hidden: true, restrictedInvocation: false }],
    });
    const report = await provisionWorld(store, world([endpoint(WEATHER, [{}])]), DEFAULT_LIMITS);
    expect(report.policyChanged).toBe(true);
    expect(store.policy.load()).toEqual({ grants: [], endpointPolicies: [] });
  });
});

describe('a world with problems changes nothing and lists every problem', () => {
  it('reports invalid manifests, foreign JIDs, duplicate versions and an unknown active version', async () => {
    const bad = manifestObject({ version: 'not a version' });
    const problems = await problemsOf(
      provisionWorld(
        dir.open(),
        world([
          { jid: WEATHER, versions: [{ manifest: bad }] },
          endpoint('calendar@agents.example', [{ version: '1' }, { version: '1' }], { active: '1' }),
          { jid: 'other@agents.example', versions: [{ manifest: manifestObject({ jid: WEATHER }) }] },
          endpoint('toolbox@agents.example', [{ version: '1' }], { active: '2' }),
        ]),
        DEFAULT_LIMITS,
      ),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^\/endpoints\/0\/versions\/0: the inline manifest is refused \(manifest-invalid\);.*\/agent\/version/,
      ),
      '/endpoints/1/versions/1: version 1 is listed twice',
      '/endpoints/2/versions/0: agent.jid is weather@agents.example, not other@agents.example',
      '/endpoints/3/active: 2 is not one of the versions listed for this endpoint',
    ]);
  });

  it('refuses to rewrite a registered version, and rolls back everything else of the load', async () => {
    const store = dir.open();
    await provisionWorld(store, world([endpoint(WEATHER, [{ title: 'One' }])]), DEFAULT_LIMITS);
    const problems = await problemsOf(
      provisionWorld(
        store,
        world([
          endpoint('calendar@agents.example', [{}], { active: '1.0.0' }),
          endpoint(WEATHER, [{ title: 'Two' }]),
        ]),
        DEFAULT_LIMITS,
      ),
    );
    expect(problems).toEqual([
      '/endpoints/1/versions/0: version 1.0.0 is registered with different content (conflict)',
    ]);
    expect(store.registrations.endpointExists('calendar@agents.example')).toBe(false);
  });

  it('refuses different content under a removed version, and the removal of a declared active version', async () => {
    const store = dir.open();
    await provisionWorld(
      store,
      world([endpoint(WEATHER, [{ version: '1' }, { version: '2' }], { active: '1' })]),
      DEFAULT_LIMITS,
    );
    expect(new Registry(store).removeVersion(WEATHER, '2').ok).toBe(true);
    const problems = await problemsOf(
      provisionWorld(
        store,
        world([endpoint(WEATHER, [{ version: '1' }, { version: '2', title: 'New' }], { active: '1' })]),
        DEFAULT_LIMITS,
      ),
    );
    expect(problems).toEqual([
      '/endpoints/0/versions/1: version 2 was removed with different content (tombstone conflict)',
    ]);
    const activating = await problemsOf(
      provisionWorld(
        store,
        world([endpoint(WEATHER, [{ version: '1' }, { version: '2' }], { active: '2' })]),
        DEFAULT_LIMITS,
      ),
    );
    expect(activating).toEqual([
      '/endpoints/0/active: version 2 was removed by an administrator and cannot be activated',
    ]);
  });
});
