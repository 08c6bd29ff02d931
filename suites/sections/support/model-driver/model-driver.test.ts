// The model driver's pure parts: the run world handed to the model (grants as the suites read the
// world file, unconfirmed items refused), the operations' edges, and the judging of real replies
// against the model's answer sets.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NODE_DIRECTORY } from '../../../../protocol/namespaces.ts';
import { exchangeOf } from '../../../framework/test-support/iq-exchange.ts';
import { MissingFixture } from '../../../framework/verdicts.ts';
import {
  loadReferenceWorld,
  referenceWorldOf,
  REFERENCE_WORLD_FILE,
  type RoleJids,
} from '../../../fixtures/reference-world.ts';
import { inlineWorldFile } from '../../../../protocol/fixture-world-file.ts';
import type { CaseContext } from '../../../framework/context.ts';
import { SeededRandom } from '../../../framework/seeded-random.ts';
import { directoryItems, manifestRetrieval, maySee, searchBounds } from '../../../model/index.ts';
import { generatedEndpointsArbitrary, manifestOf, worldFileEndpoints } from './generated-world.ts';
import { edgeSteps, stepArbitrary, vocabularyOf } from './arbitraries.ts';
import { ModelExperiment } from './experiment.ts';
import { judgeReply } from './judge.ts';
import { expectationOf } from './operations.ts';
import { runWorldOf } from './run-world.ts';

const ROLES: RoleJids = {
  local: 'bob@server.example',
  remote: 'alice@example.com',
  remotePeer: 'carol@example.com',
  denied: 'mallory@hostile.example',
  admin: 'admin@server.example',
  localPeer: 'dave@server.example',
  toolGrantee: 'grantee@example.com',
};

function contextWith(world: CaseContext['world']): CaseContext {
  return { world, sut: { gatewayJid: 'agents.example' } } as unknown as CaseContext;
}

const run = runWorldOf(contextWith(loadReferenceWorld(REFERENCE_WORLD_FILE, ROLES)));

function requireEndpoint(jid: string): { readonly jid: string } {
  const found = run.model.endpoints.find((endpoint) => endpoint.jid === jid);
  if (found === undefined) throw new Error(`the reference world has no ${jid}`);
  return found;
}

function edgeManifest(names: readonly string[]): {
  tools: { name: string; inputSchema: { type: 'object' } }[];
} {
  return { tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })) };
}

function directoryReply(jids: readonly string[], count: number): string {
  const items = jids.map((jid) => `<item jid='${jid}'/>`).join('');
  const set =
    jids.length === 0
      ? `<set xmlns='http://jabber.org/protocol/rsm'><count>${String(count)}</count></set>`
      : `<set xmlns='http://jabber.org/protocol/rsm'><first index='0'>${jids[0] ?? ''}</first><last>${jids.at(-1) ?? ''}</last><count>${String(count)}</count></set>`;
  return `<iq type='result' id='a' from='agents.example'><query xmlns='http://jabber.org/protocol/disco#items' node='${NODE_DIRECTORY}'>${items}${set}</query></iq>`;
}

describe('the run world', () => {
  it('gives each role exactly what the world file grants it', () => {
    const local = run.principalOf('local');
    const carol = run.principalOf('remotePeer');
    const listed = (principal: typeof local) =>
      directoryItems(run.model, principal, { rsm: { max: 100 } }).alternatives.flatMap((alternative) =>
        alternative.answer.kind === 'page' && alternative.verdict === 'pass'
          ? [alternative.answer.page.fullSet]
          : [],
      )[0];
    expect(listed(carol)).toEqual(['weather@agents.example']);
    expect(listed(local)).not.toContain('vault@agents.example');
    expect(run.roles).toContain('denied');
    expect(run.principalOf('denied').kind).toBe('hostile');
  });

  it('cannot tell while a grant waits on an unconfirmed checklist item', () => {
    const pending = referenceWorldOf(
      inlineWorldFile(REFERENCE_WORLD_FILE),
      ROLES,
      'admin-iq',
      new Set(['grants']),
    );
    expect(() => runWorldOf(contextWith(pending))).toThrow(MissingFixture);
  });

  it('aims invocations at the edges of each grant: every tool of an endpoint a tool grant names some of', () => {
    const vocabulary = vocabularyOf(run.model, run.roles, (role) => run.principalOf(role));
    const carolEdges = vocabulary.edges.get('remotePeer') ?? [];
    const described = carolEdges.map((target) => `${target.jid} ${target.version} ${target.tool}`);
    expect(described).toContain('weather@agents.example 2.0.0 alerts.list');
    expect(described).toContain('weather@agents.example 2.0.0 forecast.get');
    expect(carolEdges.map((target) => target.tool)).not.toContain('absent.tool');
  });

  it('tries, as the tool grantee, every toolbox tool its separate grants name and the ungranted ones a bug reaches first', () => {
    const principalOf = (role: Parameters<typeof run.principalOf>[0]) => run.principalOf(role);
    const vocabulary = vocabularyOf(run.model, run.roles, principalOf);
    const grantee = run.principalOf('toolGrantee');
    const toolbox = edgeSteps(run.model, vocabulary, 'invocation', principalOf).flatMap(
      ({ role, operation }) =>
        role === 'toolGrantee' && operation.kind === 'invoke' && operation.jid === 'toolbox@agents.example'
          ? [operation]
          : [],
    );
    const admitted = toolbox.filter((operation) =>
      expectationOf(run.model, grantee, operation).alternatives.some(
        (alternative) => alternative.answer.kind === 'error' && alternative.answer.condition === 'conflict',
      ),
    );
    expect(admitted.map((operation) => operation.tool).toSorted()).toEqual(['tool.01', 'tool.30', '\u0416']);
    const refused = toolbox
      .filter((operation) => !admitted.includes(operation))
      .map((operation) => operation.tool);
    // The first and last tool in UTF-8 order (A, the emoji), and each granted tool's neighbours.
    expect(refused).toEqual(
      expect.arrayContaining([
        'A',
        '\u{1F600}.grin',
        'tool.02',
        'tool.29',
        '\u00E9t\u00E9',
        '\uE000.private-use',
      ]),
    );
    expect(refused).not.toContain('tool.15');
    for (const operation of toolbox.filter((candidate) => !admitted.includes(candidate)))
      expect(expectationOf(run.model, grantee, operation).sameAsNonexistent).toBe(true);
    // Weather's tools it has by its domain's grant, as carol does: carol's edges try them.
    expect(
      (vocabulary.edges.get('toolGrantee') ?? []).filter((target) => target.jid === 'weather@agents.example'),
    ).toEqual([]);
    // On weather's few tools, carol's edges are all of them, as before.
    expect(
      (vocabulary.edges.get('remotePeer') ?? []).map((target) => `${target.version} ${target.tool}`),
    ).toEqual(['1.4.0 forecast.get', '2.0.0 alerts.list', '2.0.0 forecast.get']);
  });

  it("keeps every lengthened and recased name of a granted tool in a version added to the grantee's endpoint", () => {
    const toolbox = requireEndpoint('toolbox@agents.example');
    const names = [
      'tool.01',
      'tool.01.more',
      'tool.01x',
      'TOOL.01',
      'tool.14',
      'tool.15',
      'tool.16',
      'tool.30',
      'tool.30x',
      'zz',
    ];
    const added = {
      jid: toolbox.jid,
      versions: [
        {
          version: '7.0.0',
          manifest: {
            ...edgeManifest(names),
            agent: { jid: toolbox.jid, name: 'toolbox', version: '7.0.0' },
          },
        },
      ],
      active: undefined,
      shape: { versions: [{ name: 'toolbox', tools: names }], active: undefined },
    };
    const joined = runWorldOf(
      contextWith(loadReferenceWorld(REFERENCE_WORLD_FILE, ROLES)),
      worldFileEndpoints({ seed: 1, endpoints: [added] }),
    );
    const principalOf = (role: Parameters<typeof joined.principalOf>[0]) => joined.principalOf(role);
    const vocabulary = vocabularyOf(joined.model, joined.roles, principalOf);
    const edges = (vocabulary.edges.get('toolGrantee') ?? [])
      .filter((target) => target.version === '7.0.0')
      .map((target) => target.tool);
    // Not tool.14 or tool.15: neither a loose match of a granted name, next to one, first nor last.
    expect(edges.toSorted()).toEqual(
      ['TOOL.01', 'tool.01', 'tool.01.more', 'tool.01x', 'tool.16', 'tool.30', 'tool.30x', 'zz'].toSorted(),
    );
  });

  it('tries every grant edge and every description-only nick first, whatever the seed', () => {
    const principalOf = (role: Parameters<typeof run.principalOf>[0]) => run.principalOf(role);
    const vocabulary = vocabularyOf(run.model, run.roles, principalOf);
    const invocations = edgeSteps(run.model, vocabulary, 'invocation', principalOf);
    expect(invocations).toContainEqual({
      role: 'remotePeer',
      operation: expect.objectContaining({ jid: 'weather@agents.example', tool: 'alerts.list' }) as unknown,
    });
    const searches = edgeSteps(run.model, vocabulary, 'search', principalOf);
    expect(searches.length).toBeGreaterThan(0);
    for (const { role, operation } of searches) {
      if (operation.kind !== 'search') throw new Error('a search edge that is not a search');
      const described = run.model.endpoints.filter((endpoint) =>
        endpoint.versions.some((version) => version.description?.includes(operation.nick)),
      );
      const bounds = searchBounds(run.model, run.principalOf(role), operation.nick);
      expect(described.some((endpoint) => !bounds.permitted.includes(endpoint.jid))).toBe(true);
    }
    expect(edgeSteps(run.model, vocabulary, 'directory', principalOf)).toEqual([]);
  });
});

describe('the administrator registering JIDs the gateway does not host', () => {
  const principalOf = (role: Parameters<typeof run.principalOf>[0]) => run.principalOf(role);
  const vocabulary = vocabularyOf(run.model, run.roles, principalOf);
  const registrations = edgeSteps(run.model, vocabulary, 'provisioning', principalOf).filter(
    ({ operation }) => operation.kind === 'admin' && operation.request === 'register',
  );

  it('claims every other domain and every other account of the run, never its own JID', () => {
    const claimed = registrations.map(
      ({ role, operation }) => `${role} ${'jid' in operation ? operation.jid : ''}`,
    );
    expect(claimed).toEqual(
      expect.arrayContaining([
        'admin model-absent@server.example',
        'admin model-absent@example.com',
        'admin bob@server.example',
        'admin alice@example.com',
      ]),
    );
    expect(claimed).not.toContain('admin admin@server.example');
  });

  it('takes any refusal, and fails a <registered/> citing sender spoofing', () => {
    const admin = run.principalOf('admin');
    const step = registrations.find(
      ({ operation }) => 'jid' in operation && operation.jid === 'bob@server.example',
    );
    if (step === undefined) throw new Error('no registration of another account');
    const expected = expectationOf(run.model, admin, step.operation);
    expect(expected.requirements[0]).toBe('security.no-sender-spoofing');
    const refused = `<iq type='error' id='a'><error type='auth'><forbidden xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>`;
    const registered = `<iq type='result' id='a'><registered xmlns='urn:xmpp:agent-api:0' jid='bob@server.example' version='0.0.0-absent'><hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>AAAA</hash></registered></iq>`;
    expect(judgeReply(expected, exchangeOf(refused), 'jids').verdict).toBe('pass');
    expect(judgeReply(expected, exchangeOf(registered), 'jids').verdict).toBe('fail');
  });
});

describe('judging a reply against the model', () => {
  const carol = run.principalOf('remotePeer');
  const expected = directoryItems(run.model, carol, { node: NODE_DIRECTORY, rsm: { max: 5 } });

  it('passes the page the model expects', () => {
    const judged = judgeReply(expected, exchangeOf(directoryReply(['weather@agents.example'], 1)), 'jids');
    expect(judged.verdict).toBe('pass');
  });

  it('fails a page showing an endpoint the requester may not see, as a disclosure', () => {
    const reply = directoryReply(['calendar@agents.example', 'weather@agents.example'], 2);
    const judged = judgeReply(expected, exchangeOf(reply), 'jids');
    expect(judged.verdict).toBe('fail');
    expect(judged.kind).toBe('disclosed');
  });

  it('fails a wrong count as a count', () => {
    const judged = judgeReply(expected, exchangeOf(directoryReply(['weather@agents.example'], 3)), 'jids');
    expect(judged).toMatchObject({ verdict: 'fail', kind: 'count' });
  });

  it('takes the refusal of an unseen manifest and nothing else', () => {
    const refusal = manifestRetrieval(run.model, carol, 'vault@agents.example');
    const notFound = `<iq type='error' id='a'><error type='cancel'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>`;
    const forbidden = `<iq type='error' id='a'><error type='auth'><forbidden xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>`;
    expect(judgeReply(refusal, exchangeOf(notFound), 'jids').verdict).toBe('pass');
    expect(judgeReply(refusal, exchangeOf(forbidden), 'jids').verdict).toBe('fail');
  });

  it('only warns about the right condition with another error type (interp-42)', () => {
    const refusal = manifestRetrieval(run.model, carol, 'vault@agents.example');
    const typedModify = `<iq type='error' id='a'><error type='modify'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>`;
    const judged = judgeReply(refusal, exchangeOf(typedModify), 'jids');
    expect(judged.verdict).toBe('warn');
    expect(judged.reasons.join(' ')).toContain('error type modify, not cancel');
  });
});

describe('a generated world', () => {
  const sample = (seed: number) => fc.sample(generatedEndpointsArbitrary(), { seed, numRuns: 1 })[0] ?? [];

  it('is the same world for the same seed, and holds multi-tool versions and description-only words', () => {
    expect(sample(11)).toEqual(sample(11));
    const worlds = [1, 2, 3, 4, 5, 6, 7, 8].map(sample);
    const versions = worlds.flat().flatMap((endpoint) => endpoint.versions);
    expect(versions.some((version) => version.tools.length > 1)).toBe(true);
    expect(worlds.flat().some((endpoint) => endpoint.active === undefined)).toBe(true);
    expect(worlds.flat().some((endpoint) => endpoint.versions.length > 1)).toBe(true);
  });

  it('joins the run world under the run grants, and its description words become search edges', () => {
    const endpoints = sample(3).map((shape, index) => {
      const jid = `gen${String(index)}@agents.example`;
      const versions = shape.versions.map((version, at) => ({
        version: `${String(at + 1)}.0.0`,
        manifest: manifestOf(jid, `${String(at + 1)}.0.0`, version),
      }));
      return { jid, versions, active: versions[0]?.version, shape };
    });
    const context = contextWith(loadReferenceWorld(REFERENCE_WORLD_FILE, ROLES));
    const joined = runWorldOf(context, worldFileEndpoints({ seed: 3, endpoints }));
    expect(joined.model.endpoints.map((endpoint) => endpoint.jid)).toEqual(
      expect.arrayContaining(['gen0@agents.example', 'gen1@agents.example']),
    );
    const local = joined.principalOf('local');
    const hostile = joined.principalOf('denied');
    const gen0 = joined.model.endpoints.find((endpoint) => endpoint.jid === 'gen0@agents.example');
    if (gen0 === undefined) throw new Error('gen0 missing');
    // The world file's "*" items cover it for the local domain; deny by default for the hostile one.
    expect(maySee(joined.model, local, gen0)).toBe(true);
    expect(maySee(joined.model, hostile, gen0)).toBe(false);
    const principalOf = (role: Parameters<typeof joined.principalOf>[0]) => joined.principalOf(role);
    const vocabulary = vocabularyOf(joined.model, joined.roles, principalOf);
    const nicks = edgeSteps(joined.model, vocabulary, 'search', principalOf).map((step) =>
      step.operation.kind === 'search' ? step.operation.nick : '',
    );
    expect(
      nicks.some((nick) => ['tabulates', 'harvests', 'reconciles', 'archives', 'forecasts'].includes(nick)),
    ).toBe(true);
  });
});

describe("a model case's re-run", () => {
  const shapes = fc.sample(generatedEndpointsArbitrary(), { seed: 2295397938, numRuns: 1 })[0] ?? [];
  /** The world an attempt provisions: the case's world shape under the attempt's own names. */
  const provisioned = (token: string) => {
    const endpoints = shapes.map((shape, index) => {
      const jid = `agentconf-model${String(index)}-${token}@agents.example`;
      const versions = shape.versions.map((version, at) => {
        const label = `${String(at + 1)}.0.0-${token}`;
        return { version: label, manifest: manifestOf(jid, label, version) };
      });
      return { jid, versions, active: versions[0]?.version, shape };
    });
    return runWorldOf(
      contextWith(loadReferenceWorld(REFERENCE_WORLD_FILE, ROLES)),
      worldFileEndpoints({ seed: 1, endpoints }),
    );
  };

  it('draws the world shape and the steps from the case seed, whatever the attempt', () => {
    const first = new ModelExperiment({
      random: new SeededRandom(17),
      attempt: { number: 1, caseSeed: 17 },
    });
    const rerun = new ModelExperiment({
      random: new SeededRandom(99),
      attempt: { number: 2, caseSeed: 17 },
    });
    expect([rerun.nextSeed(), rerun.nextSeed()]).toEqual([first.nextSeed(), first.nextSeed()]);
    expect(rerun.describe()).toContain('attempt 2, attempt seed 99 (names), case seed 17');
    // A context without an attempt identity is a first attempt.
    expect(new ModelExperiment({ random: new SeededRandom(17) }).nextSeed()).toBe(
      new ModelExperiment({ random: new SeededRandom(17), attempt: { number: 1, caseSeed: 17 } }).nextSeed(),
    );
  });

  it("repeats the first attempt's steps on the fresh names of its own world", () => {
    const stepsOf = (token: string) => {
      const world = provisioned(token);
      const principalOf = (role: Parameters<typeof world.principalOf>[0]) => world.principalOf(role);
      const vocabulary = vocabularyOf(world.model, world.roles, principalOf);
      return {
        world,
        steps: fc.sample(fc.array(stepArbitrary(vocabulary, 'metadata'), { maxLength: 3 }), {
          seed: 747178461,
          numRuns: 40,
        }),
      };
    };
    const first = stepsOf('aaaaaaaa');
    const rerun = stepsOf('zzzzzzzz');
    // Every name and hash of the first world, as the re-run's world spells it.
    const renamed = new Map<string, string>();
    first.world.model.endpoints.forEach((endpoint, index) => {
      const twin = rerun.world.model.endpoints[index];
      endpoint.versions.forEach((version, at) => {
        const twinVersion = twin?.versions[at];
        if (twinVersion !== undefined) renamed.set(version.hash, twinVersion.hash);
      });
    });
    let text = JSON.stringify(first.steps).replaceAll('aaaaaaaa', 'zzzzzzzz');
    for (const [hash, twin] of renamed) text = text.replaceAll(hash, twin);
    expect(JSON.parse(text)).toEqual(rerun.steps);
    expect(JSON.stringify(first.steps)).toContain('aaaaaaaa');
    expect(JSON.stringify(rerun.steps)).not.toContain('aaaaaaaa');
  });
});
