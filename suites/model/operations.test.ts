/**
 * The model's answers operation by operation, on the reference world with settings varied:
 * where the spec leaves a choice open the set must hold every permitted answer, and nothing
 * the spec forbids.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { inlineWorldFile } from '../../protocol/fixture-world-file.ts';
import { endpointInfo, endpointItems, toolInfo } from './endpoint-discovery.ts';
import { verdictOfError, type Expectation } from './expectation.ts';
import { invocation, type InvocationRequest } from './invocation.ts';
import { blockItemCovers, blockStateOf, humanDelivery, MESSAGE_KINDS } from './messaging.ts';
import { presenceProbe, presenceSubscribe } from './presence.ts';
import { administration, selfRegistration } from './provisioning.ts';
import { judgeMatchedSet, searchBounds, searchFindability, searchPage } from './search.ts';
import { modelWorldFromFile, REFERENCE_SETTING } from './world-file.ts';
import { endpointOf, type ModelWorld } from './world.ts';

const WORLD_FILE = fileURLToPath(new URL('../../fixtures/worlds/reference.json', import.meta.url));
const world = modelWorldFromFile(inlineWorldFile(WORLD_FILE));
const { local, remote, admin, registrant, hostile } = world.principals;

function answers(expected: Expectation): string[] {
  return expected.alternatives
    .map((alternative) =>
      alternative.answer.kind === 'error' ? alternative.answer.condition : alternative.answer.kind,
    )
    .toSorted();
}

const weather = endpointOf(world, 'weather@agents.example');
const active = weather?.versions.find((version) => version.version === '1.4.0');
const pinned: InvocationRequest = {
  jid: 'weather@agents.example',
  tool: 'forecast.get',
  version: '1.4.0',
  manifestHash: active?.hash ?? '',
  argumentsValid: true,
};

describe('invocation faults of an authorized caller (interp-27)', () => {
  it('one fault, one answer: stale hash conflict, unknown tool item-not-found, bad arguments not-acceptable', () => {
    expect(answers(invocation(world, local, { ...pinned, manifestHash: 'c3RhbGU=' }))).toEqual(['conflict']);
    const unknownTool = invocation(world, local, { ...pinned, tool: 'nope' });
    expect(answers(unknownTool)).toEqual(['item-not-found']);
    expect(unknownTool.sameAsNonexistent).toBe(true);
    expect(invocation(world, local, { ...pinned, manifestHash: 'c3RhbGU=' }).sameAsNonexistent).toBe(false);
    expect(answers(invocation(world, local, { ...pinned, argumentsValid: false }))).toEqual([
      'not-acceptable',
    ]);
  });

  it('two faults at once: either error, and no admission', () => {
    const staleAndUnknown = invocation(world, local, { ...pinned, tool: 'nope', manifestHash: 'c3RhbGU=' });
    expect(answers(staleAndUnknown)).toEqual(['conflict', 'item-not-found']);
    const staleAndLongDeadline = invocation(world, local, {
      ...pinned,
      manifestHash: 'c3RhbGU=',
      deadlineInSeconds: 10_000,
    });
    expect(answers(staleAndLongDeadline)).toEqual(['conflict', 'not-acceptable']);
  });

  it('deadlines: above the tool maximum clamp or refuse (interp-32); long expired refuse, or admit then fail with a warning (interp-30)', () => {
    expect(answers(invocation(world, local, { ...pinned, deadlineInSeconds: 10_000 }))).toEqual([
      'accepted',
      'not-acceptable',
    ]);
    // Within the clock uncertainty of the maximum (120 s) either; a measured clock decides it.
    expect(answers(invocation(world, local, { ...pinned, deadlineInSeconds: 100 }))).toEqual([
      'accepted',
      'not-acceptable',
    ]);
    expect(
      answers(
        invocation(world, local, { ...pinned, deadlineInSeconds: 119, deadlineUncertaintySeconds: 0.5 }),
      ),
    ).toEqual(['accepted']);
    const expired = invocation(world, local, { ...pinned, deadlineInSeconds: -600 });
    expect(expired.alternatives.map((alternative) => [alternative.answer.kind, alternative.verdict])).toEqual(
      [
        ['error', 'pass'],
        ['accepted-then-failed', 'warn'],
      ],
    );
  });

  it('a non-sha-256 hash: conflict, bad-request or not-acceptable', () => {
    expect(answers(invocation(world, local, { ...pinned, hashAlgo: 'sha-1' }))).toEqual([
      'bad-request',
      'conflict',
      'not-acceptable',
    ]);
  });

  it('task capacity is checked after authorization: resource-constraint for the authorized, item-not-found for the others', () => {
    const capped: ModelWorld = { ...world, limits: { ...world.limits, taskCapacity: 5 } };
    expect(answers(invocation(capped, local, pinned, { nonTerminalTasks: 5 }))).toEqual([
      'resource-constraint',
    ]);
    expect(answers(invocation(capped, local, pinned, { nonTerminalTasks: 4 }))).toEqual(['accepted']);
    expect(answers(invocation(capped, hostile, pinned, { nonTerminalTasks: 5 }))).toEqual(['item-not-found']);
  });

  it('a deactivated endpoint with exact pins: what the deployment documents (interp-23)', () => {
    const archive = endpointOf(world, 'archive@agents.example')?.versions[0];
    const expected = invocation(world, remote, {
      jid: 'archive@agents.example',
      tool: 'document.fetch',
      version: archive?.version ?? '',
      manifestHash: archive?.hash ?? '',
      argumentsValid: true,
    });
    // alice may see archive but holds no grant to invoke it: the refusal of the unauthorized.
    expect(answers(expected)).toEqual(['item-not-found']);
    const local_ = invocation(world, local, {
      jid: 'archive@agents.example',
      tool: 'document.fetch',
      version: archive?.version ?? '',
      manifestHash: archive?.hash ?? '',
      argumentsValid: true,
    });
    expect(answers(local_)).toEqual(['accepted', 'conflict', 'item-not-found', 'service-unavailable']);
  });
});

describe('provisioning (interp-24)', () => {
  const weatherHash = active?.hash ?? '';
  it('activation with a wrong hash: conflict or item-not-found; with the right one, active', () => {
    const activate = { operation: 'activate', jid: 'weather@agents.example', version: '1.4.0' } as const;
    expect(answers(administration(world, admin, { ...activate, hash: 'd3Jvbmc=' }))).toEqual([
      'conflict',
      'item-not-found',
    ]);
    expect(answers(administration(world, admin, { ...activate, hash: weatherHash }))).toEqual([
      'provisioned',
    ]);
  });

  it('removing the active version or one a task retains is refused; an idle inactive version is removed', () => {
    const remove = { operation: 'remove-version', jid: 'weather@agents.example' } as const;
    expect(answers(administration(world, admin, { ...remove, version: '1.4.0' }))).toEqual([
      'conflict',
      'not-allowed',
    ]);
    expect(
      answers(administration(world, admin, { ...remove, version: '2.0.0', retainedByTask: true })),
    ).toEqual(['conflict', 'not-allowed']);
    expect(answers(administration(world, admin, { ...remove, version: '2.0.0' }))).toEqual(['provisioned']);
  });

  it('registration: identical content idempotent, different content conflict, tombstones (interp-24)', () => {
    const register = { operation: 'register', jid: 'weather@agents.example', version: '1.4.0' } as const;
    expect(answers(administration(world, admin, { ...register, hash: weatherHash }))).toEqual([
      'provisioned',
    ]);
    expect(answers(administration(world, admin, { ...register, hash: 'b3RoZXI=' }))).toEqual(['conflict']);
    const fresh = { operation: 'register', jid: 'gone@agents.example', version: '1', hash: 'x' } as const;
    expect(answers(administration(world, admin, { ...fresh, tombstone: 'different' }))).toEqual(['conflict']);
    expect(answers(administration(world, admin, { ...fresh, tombstone: 'identical' }))).toEqual([
      'conflict',
      'provisioned',
    ]);
    expect(answers(administration(world, admin, { ...fresh, manifestValid: false }))).toEqual([
      'bad-request',
      'not-acceptable',
    ]);
  });

  it('well-formed nonexistent targets: item-not-found (status may also be empty); malformed targets: bad-request and kin', () => {
    const ghost = 'ghost@agents.example';
    for (const operation of ['activate', 'deactivate', 'remove-version', 'remove-endpoint'] as const) {
      expect(answers(administration(world, admin, { operation, jid: ghost, version: '1' }))).toEqual([
        'item-not-found',
      ]);
    }
    expect(answers(administration(world, admin, { operation: 'registration-status', jid: ghost }))).toEqual([
      'item-not-found',
      'provisioned',
    ]);
    expect(
      answers(administration(world, admin, { operation: 'deactivate', jid: 'weather@agents.example/r' })),
    ).toEqual(['bad-request', 'jid-malformed', 'not-acceptable']);
  });

  it('a JID of another domain: never provisioned, its status refused or an empty registration', () => {
    const foreign = 'ghost@example.com';
    for (const operation of [
      'register',
      'activate',
      'deactivate',
      'remove-version',
      'remove-endpoint',
    ] as const) {
      const expected = administration(world, admin, { operation, jid: foreign, version: '1', hash: 'x' });
      expect(answers(expected), operation).not.toContain('provisioned');
      if (operation === 'register') expect(expected.requirements[0]).toBe('security.no-sender-spoofing');
    }
    expect(answers(administration(world, admin, { operation: 'registration-status', jid: foreign }))).toEqual(
      expect.arrayContaining(['item-not-found', 'provisioned']),
    );
  });

  it('a self-registered endpoint on the server domain may be managed by the administrator or refused', () => {
    const selfRegistered: ModelWorld = {
      ...world,
      endpoints: [
        ...world.endpoints,
        {
          jid: 'registrant@server.example',
          versions: active === undefined ? [] : [active],
          active: '1.4.0',
          hidden: false,
          restrictedInvocation: false,
          provisioning: 'self',
          available: true,
          chat: false,
        },
      ],
    };
    const status = administration(selfRegistered, admin, {
      operation: 'registration-status',
      jid: 'registrant@server.example',
    });
    expect(answers(status)).toContain('provisioned');
    expect(answers(status)).toContain('forbidden');
    const stranger = administration(selfRegistered, admin, {
      operation: 'registration-status',
      jid: 'other@server.example',
    });
    // Nothing registered under it: refused, or an empty registration, never a version.
    for (const { answer } of stranger.alternatives)
      if (answer.kind === 'provisioned') expect(answer.versions).toEqual([]);
  });

  it('the registrant and everyone else but the administrator get the same refusal for every target', () => {
    for (const jid of ['weather@agents.example', 'ghost@agents.example', 'registrant@server.example']) {
      const refused = administration(world, registrant, { operation: 'registration-status', jid });
      expect(answers(refused)).toEqual(['forbidden', 'item-not-found']);
    }
  });

  it('self-registration: own bare JID only, local accounts only, and only where offered', () => {
    expect(answers(selfRegistration(world, registrant, 'registrant@server.example'))).toEqual([
      'provisioned',
    ]);
    expect(answers(selfRegistration(world, registrant, 'Registrant@Server.Example'))).toEqual([
      'provisioned',
    ]);
    expect(answers(selfRegistration(world, registrant, 'weather@agents.example'))).toEqual([
      'forbidden',
      'item-not-found',
      'not-allowed',
    ]);
    expect(answers(selfRegistration(world, remote, 'alice@example.com'))).toContain('forbidden');
    expect(answers(selfRegistration(world, remote, 'alice@example.com'))).not.toContain('provisioned');
    const closed = { ...world, selfRegistration: false };
    expect(answers(selfRegistration(closed, registrant, 'registrant@server.example'))).toEqual([
      'feature-not-implemented',
      'service-unavailable',
    ]);
  });
});

describe('Human Messaging delivery by block state (interp-44)', () => {
  const human = 'juliet@example.com';
  const withBlocklist = (blocklist: readonly string[] | 'unknown'): ModelWorld => ({
    ...world,
    blocklists: new Map([[human, blocklist]]),
  });

  it('XEP-0191 items cover the exact JID, its bare JID and its domain', () => {
    expect(blockItemCovers('conformance@agents.example', 'conformance@agents.example')).toBe(true);
    expect(blockItemCovers('agents.example', 'conformance@agents.example')).toBe(true);
    expect(blockItemCovers('Conformance@Agents.Example', 'conformance@agents.example/x')).toBe(true);
    expect(blockItemCovers('conformance@agents.example/other', 'conformance@agents.example/x')).toBe(false);
    expect(blockItemCovers('weather@agents.example', 'conformance@agents.example')).toBe(false);
    expect(blockStateOf(withBlocklist(['agents.example']), human, 'conformance@agents.example')).toBe(
      'blocked',
    );
  });

  it('blocked or unknown: every message the endpoint originates is withheld; not blocked: its choice', () => {
    for (const kind of MESSAGE_KINDS.filter((candidate) => candidate !== 'task-event')) {
      for (const blocklist of [['conformance@agents.example'], ['agents.example'], 'unknown'] as const) {
        expect(
          answers(humanDelivery(withBlocklist(blocklist), human, 'conformance@agents.example', kind)),
        ).toEqual(['withheld']);
      }
      expect(answers(humanDelivery(withBlocklist([]), human, 'conformance@agents.example', kind))).toEqual([
        'delivered',
        'withheld',
      ]);
    }
  });

  it('task lifecycle messages to a caller are out of the blocking scope', () => {
    expect(
      answers(humanDelivery(withBlocklist('unknown'), human, 'conformance@agents.example', 'task-event')),
    ).toEqual(['delivered', 'withheld']);
  });
});

describe('presence (identity-presence.presence-handling)', () => {
  it('a probe from a non-subscriber never gets the endpoint presence', () => {
    const probe = presenceProbe(world, local, 'weather@agents.example', false);
    expect(probe.alternatives.map((alternative) => alternative.answer)).toEqual([
      { kind: 'presence', types: ['unsubscribed'] },
      { kind: 'silence' },
    ]);
    expect(presenceProbe(world, local, 'weather@agents.example', true).alternatives[0]?.answer).toEqual({
      kind: 'presence',
      types: ['available'],
    });
  });

  it('a subscription to a hidden endpoint is answered like one to a nonexistent endpoint', () => {
    const hidden = presenceSubscribe(world, local, 'vault@agents.example');
    const absent = presenceSubscribe(world, local, 'nobody@agents.example');
    expect(hidden.alternatives).toEqual(absent.alternatives);
    expect(hidden.sameAsNonexistent).toBe(true);
    expect(answers(presenceSubscribe(world, local, 'weather@agents.example'))).toEqual([
      'presence',
      'presence',
    ]);
  });
});

describe('search bounds and discovery leftovers', () => {
  it('the matched set lies between what every reading and what some reading of nick matching returns', () => {
    const bounds = searchBounds(world, local, 'weather');
    expect(bounds).toEqual({ required: [], permitted: ['weather@agents.example'], tolerated: [] });
    expect(judgeMatchedSet(bounds, ['weather@agents.example'])).toBe('pass');
    expect(judgeMatchedSet(bounds, ['calendar@agents.example'])).toBe('fail');
    const archive = searchBounds(world, local, 'archive');
    expect(judgeMatchedSet(archive, ['archive@agents.example'])).toBe('warn');
    if (weather === undefined) throw new Error('the reference world has no weather');
    expect(searchFindability(weather)).toEqual(['weather', 'Weather Agent']);
  });

  it('the empty query: every visible endpoint, nothing, or not-acceptable (interp-18)', () => {
    const expected = searchPage(world, local, { nick: '', rsm: { max: 50 } });
    expect(verdictOfError(expected, 'not-acceptable')).toBe('pass');
    const pages = expected.alternatives.flatMap((alternative) =>
      alternative.answer.kind === 'page'
        ? [[alternative.answer.page.fullSet.length, alternative.verdict]]
        : [],
    );
    expect(pages).toEqual([
      [7, 'pass'],
      [8, 'warn'],
      [0, 'pass'],
    ]);
  });

  it('node-less items of a hidden endpoint look like a nonexistent one; malformed tool nodes get bad-request or item-not-found', () => {
    const hidden = endpointItems(world, local, 'vault@agents.example');
    expect(hidden.alternatives).toEqual(endpointItems(world, local, 'nobody@agents.example').alternatives);
    expect(
      answers(toolInfo(world, local, 'weather@agents.example', 'urn:xmpp:agent-tool:0#1.4.0#Zm9v=')),
    ).toEqual(['bad-request', 'item-not-found']);
  });

  it('disco#info on a tool or collection node of an endpoint is the tool or collection answer', () => {
    const node = active?.tools[0]?.node ?? '';
    expect(endpointInfo(world, local, 'weather@agents.example', node)).toEqual(
      toolInfo(world, local, 'weather@agents.example', node),
    );
    expect(
      answers(endpointInfo(world, local, 'weather@agents.example', 'urn:xmpp:agent-tools:0#1.4.0')),
    ).toEqual(['identity']);
    expect(
      answers(endpointInfo(world, local, 'weather@agents.example', 'urn:xmpp:agent-endpoint:0')),
    ).toEqual(['item-not-found']);
  });

  it('the reference setting names an account for every principal role', () => {
    expect(Object.keys(REFERENCE_SETTING.accounts).toSorted()).toEqual(
      Object.keys(world.principals).toSorted(),
    );
  });
});
