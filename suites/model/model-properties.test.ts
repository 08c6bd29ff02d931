/**
 * Properties of the model itself over generated worlds: what must hold whatever the world, so
 * that a verdict drawn from the model is never the model's own bug.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareUtf8 } from '../../protocol/jid/index.ts';
import { maySee, mayInvoke, visibleEndpoints } from './access.ts';
import { directoryItems, directorySets } from './directory.ts';
import { endpointInfo, endpointItems, toolCollectionItems, toolInfo } from './endpoint-discovery.ts';
import type { Expectation } from './expectation.ts';
import { invocation } from './invocation.ts';
import { bucketDecisions, underLimit } from './limits.ts';
import { judgePage } from './paging.ts';
import { manifestRetrieval, schemaRetrieval } from './metadata.ts';
import { searchBounds, searchPage } from './search.ts';
import { NONEXISTENT_JID, principalKindArbitrary, worldArbitrary } from './test-support/arbitrary-world.ts';
import type { ModelGrant, ModelWorld, Principal } from './world.ts';

/** The parts of an expectation a requester can observe: all but the operation's wording. */
function observable(expected: Expectation): Omit<Expectation, 'operation'> {
  const { operation: _operation, ...rest } = expected;
  return rest;
}

/** Every metadata and discovery question about an endpoint, asked for `jid`'s version `version`. */
function discoveryQuestions(
  world: ModelWorld,
  principal: Principal,
  jid: string,
  version: string,
  tool: string,
): Expectation[] {
  const collection = `urn:xmpp:agent-tools:0#${version}`;
  const node = `urn:xmpp:agent-tool:0#${version}#${Buffer.from(tool).toString('base64url')}`;
  return [
    endpointInfo(world, principal, jid),
    endpointItems(world, principal, jid),
    toolCollectionItems(world, principal, jid, collection, { max: 10 }),
    toolInfo(world, principal, jid, node),
    manifestRetrieval(world, principal, jid),
    manifestRetrieval(world, principal, jid, version),
    schemaRetrieval(world, principal, { jid, tool, version, direction: 'input', manifestHash: 'stale' }),
  ];
}

describe('the model over generated worlds', () => {
  it('hidden and nonexistent endpoints are indistinguishable to anyone without a grant to see them', () => {
    fc.assert(
      fc.property(worldArbitrary, principalKindArbitrary, (world, kind) => {
        const principal = world.principals[kind];
        for (const endpoint of world.endpoints.filter((candidate) => !maySee(world, principal, candidate))) {
          for (const version of endpoint.versions) {
            const tool = version.tools[0]?.name ?? 'get';
            const hidden = discoveryQuestions(world, principal, endpoint.jid, version.version, tool);
            const absent = discoveryQuestions(world, principal, NONEXISTENT_JID, version.version, tool);
            expect(hidden.map(observable)).toEqual(absent.map(observable));
            expect(hidden.every((expected) => expected.sameAsNonexistent)).toBe(true);
          }
        }
      }),
    );
  });

  it('one visibility decision governs directory, search, endpoint information and retrieval (rules.uniform-visibility)', () => {
    fc.assert(
      fc.property(worldArbitrary, principalKindArbitrary, (world, kind) => {
        const principal = world.principals[kind];
        const { listed, tolerated } = directorySets(world, principal);
        const emptySearch = searchBounds(world, principal, '@');
        for (const endpoint of world.endpoints) {
          const seen = maySee(world, principal, endpoint);
          expect([...listed, ...tolerated].includes(endpoint.jid)).toBe(seen);
          expect(endpointInfo(world, principal, endpoint.jid).sameAsNonexistent).toBe(!seen);
          const exact = endpoint.versions[0]?.version ?? '';
          expect(manifestRetrieval(world, principal, endpoint.jid, exact).sameAsNonexistent).toBe(!seen);
          // "@" is in no field, so nothing may match it; the empty query lists the visible set.
          expect(emptySearch.permitted).toEqual([]);
        }
        const everything = searchPage(world, principal, { nick: '' });
        const firstPage = everything.alternatives.find((alternative) => alternative.answer.kind === 'page');
        expect(firstPage?.answer).toMatchObject({ page: { fullSet: listed } });
      }),
    );
  });

  it('a directory lists visible active endpoints in UTF-8 order and counts nothing else', () => {
    fc.assert(
      fc.property(worldArbitrary, principalKindArbitrary, (world, kind) => {
        const principal = world.principals[kind];
        const expected = directoryItems(world, principal, { rsm: { max: 3 } });
        const strict = expected.alternatives.find((alternative) => alternative.verdict === 'pass');
        if (strict?.answer.kind !== 'page') throw new Error('no strict page');
        const fullSet = strict.answer.page.fullSet;
        expect(fullSet).toEqual(fullSet.toSorted(compareUtf8));
        const visibleActive = visibleEndpoints(world, principal).filter(
          (endpoint) => endpoint.active !== undefined,
        );
        expect(fullSet).toEqual(visibleActive.map((endpoint) => endpoint.jid));
      }),
    );
  });

  it('paging a directory with any page size yields each visible active endpoint exactly once, in order', () => {
    fc.assert(
      fc.property(
        worldArbitrary,
        principalKindArbitrary,
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        (world, kind, max, picks) => {
          const principal = world.principals[kind];
          const collected: string[] = [];
          let after: string | undefined;
          for (const pick of picks) {
            const expected = directoryItems(world, principal, {
              rsm: after === undefined ? { max } : { max, after },
            });
            const strict = expected.alternatives.find((alternative) => alternative.verdict === 'pass');
            if (strict?.answer.kind !== 'page') throw new Error('no strict page');
            const { page } = strict.answer;
            const size = page.minItems + (pick % (page.maxItems - page.minItems + 1));
            const items = page.candidates.slice(0, size);
            const [first] = items;
            const last = items.at(-1);
            const bounds = first === undefined || last === undefined ? {} : { first, last };
            expect(judgePage(page, { items, set: { ...bounds, count: page.fullSet.length } }).verdict).toBe(
              'pass',
            );
            if (items.length === 0) break;
            collected.push(...items);
            after = items.at(-1);
          }
          expect(collected).toEqual(directorySets(world, principal).listed);
        },
      ),
    );
  });

  it('a grant to invoke never makes an endpoint visible, and visibility never lets anyone invoke', () => {
    fc.assert(
      fc.property(worldArbitrary, principalKindArbitrary, (world, kind) => {
        const principal = world.principals[kind];
        const invokeEverything: ModelGrant = {
          subject: { principal: principal.bare },
          seeAll: false,
          see: new Set(),
          invokeAll: true,
          invoke: new Map(world.endpoints.map((endpoint) => [endpoint.jid, 'all'])),
        };
        const seeEverything: ModelGrant = {
          subject: { principal: principal.bare },
          seeAll: true,
          see: new Set(world.endpoints.map((endpoint) => endpoint.jid)),
          invokeAll: false,
          invoke: new Map(),
        };
        const invoking = { ...world, grants: [...world.grants, invokeEverything] };
        const seeing = { ...world, grants: [...world.grants, seeEverything] };
        expect(directorySets(invoking, principal)).toEqual(directorySets(world, principal));
        for (const endpoint of world.endpoints) {
          for (const tool of endpoint.versions.flatMap((version) => version.tools)) {
            expect(mayInvoke(seeing, principal, endpoint, tool.name)).toBe(
              mayInvoke(world, principal, endpoint, tool.name),
            );
          }
        }
      }),
    );
  });

  it('an invoke-only caller with exact pins is admitted; a see-only caller gets the not-found refusal', () => {
    fc.assert(
      fc.property(worldArbitrary, principalKindArbitrary, (world, kind) => {
        const principal = world.principals[kind];
        for (const endpoint of world.endpoints.filter((candidate) => candidate.active !== undefined)) {
          const active = endpoint.versions.find((version) => version.version === endpoint.active);
          for (const tool of active?.tools ?? []) {
            const expected = invocation(world, principal, {
              jid: endpoint.jid,
              tool: tool.name,
              version: active?.version ?? '',
              manifestHash: active?.hash ?? '',
              argumentsValid: true,
            });
            if (mayInvoke(world, principal, endpoint, tool.name)) {
              expect(expected.alternatives.map((alternative) => alternative.answer)).toEqual([
                { kind: 'accepted' },
              ]);
            } else {
              expect(expected.sameAsNonexistent).toBe(true);
              expect(expected.alternatives.map((alternative) => alternative.answer)).toEqual([
                { kind: 'error', condition: 'item-not-found' },
              ]);
            }
          }
        }
      }),
    );
  });

  it('the hostile server is denied everything by default', () => {
    fc.assert(
      fc.property(worldArbitrary, (world) => {
        const hostile = world.principals.hostile;
        expect(visibleEndpoints(world, hostile)).toEqual([]);
        for (const endpoint of world.endpoints) {
          for (const tool of endpoint.versions.flatMap((version) => version.tools)) {
            expect(mayInvoke(world, hostile, endpoint, tool.name)).toBe(false);
          }
        }
      }),
    );
  });

  it('a visible version lists every one of its tools, in UTF-8 order of the names', () => {
    fc.assert(
      fc.property(worldArbitrary, principalKindArbitrary, (world, kind) => {
        const principal = world.principals[kind];
        for (const endpoint of visibleEndpoints(world, principal)) {
          for (const version of endpoint.versions) {
            const expected = toolCollectionItems(world, principal, endpoint.jid, version.collectionNode);
            const page = expected.alternatives.find((alternative) => alternative.answer.kind === 'page');
            if (page?.answer.kind !== 'page') throw new Error('no page for a visible version');
            const names = version.tools.map((tool) => tool.name);
            expect(page.answer.page.fullSet).toEqual(version.tools.map((tool) => tool.node));
            expect(names).toEqual(names.toSorted(compareUtf8));
          }
        }
      }),
    );
  });

  it('a rate limit never replaces the refusal of an unauthorized request', () => {
    fc.assert(
      fc.property(
        worldArbitrary,
        principalKindArbitrary,
        fc.constantFrom('limit', 'either', 'serve' as const),
        (world, kind, decision) => {
          const principal = world.principals[kind];
          const refusal = endpointInfo(world, principal, NONEXISTENT_JID);
          expect(underLimit(refusal, decision)).toEqual(refusal);
        },
      ),
    );
  });

  it('a sustained rate within the bucket is always served; bursts beyond it are refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 50 }), (burst, perSecond) => {
        const bucket = { burst, perSecond };
        const sustained = Array.from({ length: 100 }, (_, index) => (index * 2) / perSecond);
        expect(
          bucketDecisions(bucket, sustained, 0.01 / perSecond).every((decision) => decision === 'serve'),
        ).toBe(true);
        const burstArrivals = Array.from({ length: burst + 5 }, () => 0);
        const decisions = bucketDecisions(bucket, burstArrivals, 0);
        expect(decisions.slice(0, burst).every((decision) => decision === 'serve')).toBe(true);
        expect(decisions.slice(burst).every((decision) => decision === 'limit')).toBe(true);
      }),
    );
  });
});
