/**
 * The reference world (fixtures/worlds/reference.json) through the model, compared by hand with
 * the world's own description: who sees and invokes what. A disagreement here means either the
 * model or the description is wrong; the fixture is not changed to suit the model.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inlineWorldFile } from '../../protocol/fixture-world-file.ts';
import { maySee, mayInvoke } from './access.ts';
import { directoryItems, directorySets } from './directory.ts';
import { endpointInfo } from './endpoint-discovery.ts';
import { acceptedConditions, type Expectation } from './expectation.ts';
import { invocation } from './invocation.ts';
import { manifestRetrieval, schemaRetrieval } from './metadata.ts';
import { administration } from './provisioning.ts';
import { searchBounds } from './search.ts';
import { modelWorldFromFile } from './world-file.ts';
import { endpointOf, type ModelEndpoint, type PrincipalKind } from './world.ts';

const WORLD_FILE = fileURLToPath(new URL('../../fixtures/worlds/reference.json', import.meta.url));
const world = modelWorldFromFile(inlineWorldFile(WORLD_FILE));
const BMP = '\u{FA0E}@agents.example';
const ASTRAL = '\u{20000}@agents.example';

function endpoint(localpart: string): ModelEndpoint {
  const found = endpointOf(world, localpart.includes('@') ? localpart : `${localpart}@agents.example`);
  if (found === undefined) throw new Error(`the reference world has no ${localpart}`);
  return found;
}

function answers(expected: Expectation): string[] {
  return expected.alternatives.map((alternative) =>
    alternative.answer.kind === 'error' ? alternative.answer.condition : alternative.answer.kind,
  );
}

function invokeActive(kind: PrincipalKind, localpart: string, tool: string, version?: string): Expectation {
  const target = endpoint(localpart);
  const manifest = target.versions.find((candidate) => candidate.version === (version ?? target.active));
  return invocation(world, world.principals[kind], {
    jid: target.jid,
    tool,
    version: manifest?.version ?? '',
    manifestHash: manifest?.hash ?? '',
    argumentsValid: true,
  });
}

describe('the reference world, as its description states it', () => {
  it('local callers list everything that is not hidden, in UTF-8 order; the deactivated archive only with a warning', () => {
    for (const kind of ['local', 'localPeer', 'admin', 'registrant'] as const) {
      expect(directorySets(world, world.principals[kind])).toEqual({
        listed: [
          'calendar@agents.example',
          'conformance@agents.example',
          'toolbox@agents.example',
          'translator@agents.example',
          'weather@agents.example',
          BMP,
          ASTRAL,
        ],
        tolerated: ['archive@agents.example'],
      });
    }
  });

  it('alice sees her named endpoints, vault included, but not translator', () => {
    const alice = world.principals.remote;
    expect(directorySets(world, alice).listed).toEqual([
      'calendar@agents.example',
      'conformance@agents.example',
      'toolbox@agents.example',
      'vault@agents.example',
      'weather@agents.example',
      BMP,
      ASTRAL,
    ]);
    expect(maySee(world, alice, endpoint('translator'))).toBe(false);
  });

  it('the rest of example.com sees weather only, and may invoke forecast.get only', () => {
    const carol = world.principals.remotePeer;
    expect(directorySets(world, carol)).toEqual({ listed: ['weather@agents.example'], tolerated: [] });
    expect(answers(invokeActive('remotePeer', 'weather', 'forecast.get'))).toEqual(['accepted']);
    const alerts = invokeActive('remotePeer', 'weather', 'alerts.list', '2.0.0');
    expect(answers(alerts)).toEqual(['item-not-found']);
    expect(alerts.sameAsNonexistent).toBe(true);
    expect(answers(invokeActive('remote', 'weather', 'alerts.list', '2.0.0'))).toEqual(['accepted']);
  });

  it('grantee invokes the three toolbox tools its two per-tool grants name, and no other, without seeing toolbox', () => {
    const grantee = world.principals.toolGrantee;
    expect(directorySets(world, grantee)).toEqual({ listed: ['weather@agents.example'], tolerated: [] });
    expect(maySee(world, grantee, endpoint('toolbox'))).toBe(false);
    for (const tool of ['tool.01', '\u0416', 'tool.30'])
      expect(answers(invokeActive('toolGrantee', 'toolbox', tool))).toEqual(['accepted']);
    const other = invokeActive('toolGrantee', 'toolbox', 'tool.02');
    expect(answers(other)).toEqual(['item-not-found']);
    expect(other.sameAsNonexistent).toBe(true);
  });

  it('hostile.example gets nothing: an empty directory, refusals indistinguishable from absence', () => {
    const mallory = world.principals.hostile;
    expect(directorySets(world, mallory)).toEqual({ listed: [], tolerated: [] });
    const weatherInfo = endpointInfo(world, mallory, 'weather@agents.example');
    expect(weatherInfo.sameAsNonexistent).toBe(true);
    expect(answers(invokeActive('hostile', 'weather', 'forecast.get'))).toEqual(['item-not-found']);
  });

  it('vault is invocable by local callers without being visible to them', () => {
    const bob = world.principals.local;
    expect(maySee(world, bob, endpoint('vault'))).toBe(false);
    expect(answers(invokeActive('local', 'vault', 'records.count'))).toEqual(['accepted']);
    expect(manifestRetrieval(world, bob, 'vault@agents.example').sameAsNonexistent).toBe(true);
    const vault = endpoint('vault').versions[0];
    const schema = schemaRetrieval(world, bob, {
      jid: 'vault@agents.example',
      tool: 'records.count',
      version: vault?.version ?? '',
      direction: 'input',
      manifestHash: vault?.hash ?? '',
    });
    expect(schema.sameAsNonexistent).toBe(true);
  });

  it('translator is visible to local callers without being invocable by them; alice the other way round', () => {
    expect(maySee(world, world.principals.local, endpoint('translator'))).toBe(true);
    expect(answers(invokeActive('local', 'translator', 'translate'))).toEqual(['item-not-found']);
    expect(answers(invokeActive('remote', 'translator', 'translate'))).toEqual(['accepted']);
  });

  it('alice sees calendar without invoking it', () => {
    expect(maySee(world, world.principals.remote, endpoint('calendar'))).toBe(true);
    expect(mayInvoke(world, world.principals.remote, endpoint('calendar'), 'events.list')).toBe(false);
  });

  it('local callers and alice see and invoke conformance; alice sees the two ordering endpoints but invokes neither', () => {
    for (const kind of ['local', 'remote'] as const) {
      expect(maySee(world, world.principals[kind], endpoint('conformance'))).toBe(true);
      expect(answers(invokeActive(kind, 'conformance', 'script'))).toEqual(['accepted']);
    }
    expect(mayInvoke(world, world.principals.remote, endpoint(BMP), 'anything')).toBe(false);
  });

  it('weather is served as the full manifest, whose hash interp-01 computed independently', () => {
    const info = endpointInfo(world, world.principals.local, 'weather@agents.example');
    expect(info.alternatives[0]?.answer).toMatchObject({
      kind: 'endpoint-info',
      version: '1.4.0',
      manifestHash: 'fFqwrKetRrAKF1IPjZ8z2G6O6OKLd5RwO0DG0RtyDhg=',
      serverName: 'weather',
      serverTitle: 'Weather Agent',
    });
  });

  it('the deactivated archive: no active manifest, its exact version served (a refusal warns)', () => {
    const bob = world.principals.local;
    expect(answers(manifestRetrieval(world, bob, 'archive@agents.example'))).toEqual(['item-not-found']);
    const exact = manifestRetrieval(world, bob, 'archive@agents.example', '1.0.0');
    expect(exact.alternatives.map((alternative) => [alternative.answer.kind, alternative.verdict])).toEqual([
      ['manifest', 'pass'],
      ['error', 'warn'],
    ]);
  });

  it('search never reveals vault to local callers, and finds weather for carol', () => {
    expect(searchBounds(world, world.principals.local, 'vault').permitted).toEqual([]);
    expect(searchBounds(world, world.principals.remotePeer, 'WEATHER').permitted).toEqual([
      'weather@agents.example',
    ]);
    expect(searchBounds(world, world.principals.remotePeer, 'calendar').permitted).toEqual([]);
  });

  it('a directory page past a hidden JID looks like one past a nonexistent JID in the same gap', () => {
    const bob = world.principals.local;
    const afterHidden = directoryItems(world, bob, { rsm: { max: 2, after: 'vault@agents.example' } });
    const afterAbsent = directoryItems(world, bob, { rsm: { max: 2, after: 'vault-absent@agents.example' } });
    expect(afterHidden.alternatives).toEqual(afterAbsent.alternatives);
    expect(afterHidden.sameAsNonexistent).toBe(true);
  });

  it('provisioning: only the administrator, and only for the gateway domain', () => {
    const register = { operation: 'register', jid: 'new@agents.example', version: '1', hash: 'h' } as const;
    expect(answers(administration(world, world.principals.admin, register))).toEqual(['provisioned']);
    const foreign = administration(world, world.principals.admin, { ...register, jid: 'new@example.com' });
    expect(acceptedConditions(foreign)).not.toHaveLength(0);
    expect(answers(foreign)).not.toContain('provisioned');
    for (const kind of ['local', 'registrant', 'remote', 'hostile'] as const) {
      const refused = administration(world, world.principals[kind], register);
      expect(answers(refused).toSorted()).toEqual(['forbidden', 'item-not-found']);
      expect(refused.sameAsNonexistent).toBe(true);
    }
  });
});
