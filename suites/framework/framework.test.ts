import { AttemptBudget } from './budget.ts';
import { describe, expect, it } from 'vitest';
import { Transcript } from '../../harness/driver/index.ts';
import type { ProfileId } from '../../protocol/profiles.ts';
import { defineSuite, type CaseDeclaration, type ConformanceCase } from './case.ts';
import type { CaseContext, SutFacts } from './context.ts';
import { expectError, expectResultPayload, expectSameErrorPayload, expectThat } from './expect.ts';
import { runCase, type CaseAttempt, type RunCaseOptions } from './run-case.ts';
import { SeededRandom, caseSeed, isSeed } from './seeded-random.ts';
import { exchangeOf } from './test-support/iq-exchange.ts';
import { CannotTell, NotApplicable, RequirementViolation } from './verdicts.ts';

const exchange = exchangeOf;

const ITEM_NOT_FOUND =
  "<iq xmlns='jabber:client' type='error' id='a' from='x@agents.example'><error type='cancel'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>";
const FORBIDDEN =
  "<iq xmlns='jabber:client' type='error' id='b' from='y@agents.example'><error type='auth'><forbidden xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>";

describe('SeededRandom', () => {
  it('gives the same numbers for the same seed and different ones for another', () => {
    const draw = (seed: number) => {
      const random = new SeededRandom(seed);
      return Array.from({ length: 8 }, () => random.int(0, 1_000_000));
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('derives a per-case seed that depends on both the run seed and the case ID', () => {
    expect(caseSeed(1, 'a.b')).toBe(caseSeed(1, 'a.b'));
    expect(caseSeed(1, 'a.b')).not.toBe(caseSeed(2, 'a.b'));
    expect(caseSeed(1, 'a.b')).not.toBe(caseSeed(1, 'a.c'));
    expect(isSeed(caseSeed(0xffff_ffff, 'x'))).toBe(true);
  });

  it('refuses seeds that cannot be printed and typed back', () => {
    for (const bad of [-1, 1.5, 2 ** 32, Number.NaN]) expect(() => new SeededRandom(bad)).toThrow(RangeError);
  });

  it('shuffles into a permutation and draws strings from the alphabet', () => {
    const random = new SeededRandom(7);
    const items = [1, 2, 3, 4, 5, 6];
    expect(random.shuffle(items).sort()).toEqual(items);
    expect(random.string('ab', 50)).toMatch(/^[ab]{50}$/);
    expect(() => random.pick([])).toThrow(RangeError);
  });
});

describe('defineSuite', () => {
  const base: Omit<CaseDeclaration, 'id'> = {
    requirements: ['list-agents.octet-order'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement: 's',
    run: () => Promise.resolve(),
  };

  it('keeps each case’s full ID and gives it the suite’s section', () => {
    const suite = defineSuite('list-agents', 'Listing', [{ ...base, id: 'list-agents.octet-order' }]);
    expect(suite.cases.map((c) => c.id)).toEqual(['list-agents.octet-order']);
    expect(suite.cases[0]?.section).toBe('list-agents');
  });

  it('refuses duplicate IDs, IDs of another section and non-kebab names', () => {
    expect(() =>
      defineSuite('s', 't', [
        { ...base, id: 's.a' },
        { ...base, id: 's.a' },
      ]),
    ).toThrow(/twice/);
    expect(() => defineSuite('s', 't', [{ ...base, id: 's.Not_Kebab' }])).toThrow(/kebab/);
    // @ts-expect-error -- an ID outside its section does not compile either
    expect(() => defineSuite('s', 't', [{ ...base, id: 'other.a' }])).toThrow(/not s\./);
  });

  it('gives each case what the section declares for all unless the case says otherwise', () => {
    const suite = defineSuite('s', 't', { alongside: true }, [
      { ...base, id: 's.a' },
      { ...base, id: 's.b', alongside: false },
    ]);
    expect(suite.cases.map((c) => c.alongside)).toEqual([true, false]);
    expect(defineSuite('s', 't', [{ ...base, id: 's.a' }]).cases[0]).not.toHaveProperty('alongside');
  });
});

describe('expectations', () => {
  it('expectError accepts the allowed conditions and type, and reports the received stanza otherwise', () => {
    expectError(exchange(ITEM_NOT_FOUND), 'errors.not-found-equivalence', 'item-not-found', 'cancel');
    expectError(exchange(ITEM_NOT_FOUND), 'errors.not-found-equivalence', ['forbidden', 'item-not-found']);
    let violation: unknown;
    try {
      expectError(exchange(FORBIDDEN), 'errors.not-found-equivalence', 'item-not-found');
    } catch (error) {
      violation = error;
    }
    expect(violation).toBeInstanceOf(RequirementViolation);
    expect(violation).toMatchObject({ requirement: 'errors.not-found-equivalence', received: FORBIDDEN });
    expect((violation as RequirementViolation).expected).toContain('<item-not-found/>');
    expect(() => {
      expectError(exchange(ITEM_NOT_FOUND), 'errors.not-found-equivalence', 'item-not-found', 'modify');
    }).toThrow(RequirementViolation);
  });

  it('expectResultPayload checks the payload name and namespace', () => {
    const reply =
      "<iq xmlns='jabber:client' type='result' id='c'><query xmlns='http://jabber.org/protocol/disco#items'/></iq>";
    expect(
      expectResultPayload(
        exchange(reply),
        'gateway-info.identity',
        'http://jabber.org/protocol/disco#items',
        'query',
      ).name,
    ).toBe('query');
    expect(() =>
      expectResultPayload(
        exchange(reply),
        'gateway-info.identity',
        'http://jabber.org/protocol/disco#info',
        'query',
      ),
    ).toThrow(RequirementViolation);
    expect(() =>
      expectResultPayload(exchange(ITEM_NOT_FOUND), 'gateway-info.identity', 'x', 'query'),
    ).toThrow(RequirementViolation);
  });

  it('expectSameErrorPayload compares the <error/> elements byte for byte, ignoring ids and senders', () => {
    const other = ITEM_NOT_FOUND.replace("id='a' from='x@", "id='z' from='w@");
    expectSameErrorPayload([exchange(ITEM_NOT_FOUND), exchange(other)], 'gateway-info.identity');
    const withText = ITEM_NOT_FOUND.replace(
      '</error>',
      "<text xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'>no such agent</text></error>",
    );
    expect(() => {
      expectSameErrorPayload([exchange(ITEM_NOT_FOUND), exchange(withText)], 'gateway-info.identity');
    }).toThrow(/differ/);
  });

  it('expectThat fails with expected and received', () => {
    expect(() => {
      expectThat('count 4', 'gateway-info.identity', 'count 3', false);
    }).toThrow(expect.objectContaining({ expected: 'count 3', received: 'count 4' }) as Error);
    expectThat('', 'gateway-info.identity', '', true);
  });
});

describe('runCase', () => {
  const sut: SutFacts = {
    name: 'sut',
    gatewayJid: 'agents.example',
    profiles: new Set<ProfileId>(['core-directory']),
    features: new Set(['urn:xmpp:agent-api:0']),
    replyTimeoutMs: 1000,
    taskTimeoutMs: 1000,
  };

  function testCase(run: ConformanceCase['run'], overrides: Partial<ConformanceCase> = {}): ConformanceCase {
    return {
      id: 'gateway-info.case',
      section: 'gateway-info',
      requirements: ['gateway-info.identity'],
      profiles: ['core-directory'],
      level: 'MUST',
      statement: 'statement',
      run,
      ...overrides,
    };
  }

  function options(overrides: Partial<RunCaseOptions> = {}): RunCaseOptions & { attempts: number } {
    const state = { attempts: 0 };
    return Object.assign(state, {
      sut,
      runSeed: 1,
      defaultTimeoutMs: 500,
      prepare: (
        _: ConformanceCase,
        seed: number,
        warn: (f: { requirement: string; message: string }) => void,
      ) => {
        state.attempts += 1;
        const transcript = new Transcript('t');
        const context = {
          sut,
          callers: {} as CaseContext['callers'],
          random: new SeededRandom(seed),
          budget: new AttemptBudget(false),
          warn: (requirement: string, message: string) => {
            warn({ requirement, message });
          },
        } satisfies CaseContext;
        return { context, transcript, dispose: () => Promise.resolve() } satisfies CaseAttempt;
      },
      ...overrides,
    });
  }

  /** One check that held: what a passing case must have decided (evidence.ts). */
  const held = (): Promise<void> => {
    expectThat('<iq/>', 'gateway-info.identity', 'an identity', true);
    return Promise.resolve();
  };

  it('passes a case that returns, keeping its SHOULD warnings', async () => {
    const result = await runCase(
      testCase((context) => {
        context.warn('find-gateway.server-lists-gateway', 'no name given');
        return held();
      }),
      options(),
    );
    expect(result.outcome).toBe('passed');
    expect(result.attempts[0]?.warnings).toEqual([
      { requirement: 'find-gateway.server-lists-gateway', message: 'no name given' },
    ]);
  });

  it('fails a violation with its requirement, expected and received, after one re-run', async () => {
    const opts = options();
    const result = await runCase(
      testCase(() => Promise.reject(new RequirementViolation('gateway-info.identity', 'identity', '<iq/>'))),
      opts,
    );
    expect(result.outcome).toBe('failed');
    expect(opts.attempts).toBe(2);
    expect(result.attempts[1]?.violation).toMatchObject({
      requirement: 'gateway-info.identity',
      received: '<iq/>',
    });
    expect(result.attempts[1]?.transcriptText).toContain('verdict: failed');
  });

  it('tells each attempt its number and the case seed, with a seed of its own', async () => {
    const seen: { seed: number; attempt: { number: number; caseSeed: number } }[] = [];
    const base = options();
    await runCase(
      testCase(() => Promise.reject(new RequirementViolation('gateway-info.identity', 'identity', '<iq/>'))),
      {
        ...base,
        prepare: (c, seed, warn, attempt) => {
          seen.push({ seed, attempt });
          return base.prepare(c, seed, warn, attempt);
        },
      },
    );
    const caseSeedOfRun = caseSeed(1, 'gateway-info.case');
    expect(seen.map(({ attempt }) => attempt)).toEqual([
      { number: 1, caseSeed: caseSeedOfRun },
      { number: 2, caseSeed: caseSeedOfRun },
    ]);
    expect(seen[0]?.seed).toBe(caseSeedOfRun);
    expect(seen[1]?.seed).not.toBe(caseSeedOfRun);
  });

  it('reports a case that fails and then passes as flaky cantTell, not passed', async () => {
    let calls = 0;
    const result = await runCase(
      testCase(() => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('lost')) : held();
      }),
      options(),
    );
    expect(result).toMatchObject({ outcome: 'cantTell', flaky: true });
    expect(result.reason).toMatch(/flaky/);
  });

  it('keeps a counterexample an adversarial case found: failed, not re-run (timing cases aside)', async () => {
    let calls = 0;
    const flipping = () => {
      calls += 1;
      return calls === 1
        ? Promise.reject(new RequirementViolation('gateway-info.identity', 'one terminal state', 'two'))
        : held();
    };
    const race = options();
    const result = await runCase(testCase(flipping, { scenario: 'race' }), race);
    expect(result).toMatchObject({ outcome: 'failed', flaky: false });
    expect(race.attempts).toBe(1);
    calls = 0;
    const timing = await runCase(testCase(flipping, { scenario: 'timing' }), options());
    expect(timing).toMatchObject({ outcome: 'cantTell', flaky: true });
    calls = 0;
    // An error that is not a violation (a timeout, a lost connection) keeps the re-run.
    const lost = options();
    let lostCalls = 0;
    await runCase(
      testCase(
        () => {
          lostCalls += 1;
          return lostCalls === 1 ? Promise.reject(new Error('lost')) : Promise.resolve();
        },
        { scenario: 'race' },
      ),
      lost,
    );
    expect(lost.attempts).toBe(2);
  });

  it('maps CannotTell, NotApplicable and unexpected errors; its time limit cannot tell', async () => {
    const outcomeOf = async (run: ConformanceCase['run'], extra: Partial<ConformanceCase> = {}) =>
      (await runCase(testCase(run, extra), options({ rerunFailures: false }))).outcome;
    expect(await outcomeOf(() => Promise.reject(new CannotTell('server down')))).toBe('cantTell');
    expect(await outcomeOf(() => Promise.reject(new NotApplicable('no fixture')))).toBe('inapplicable');
    expect(await outcomeOf(() => Promise.reject(new TypeError('bug')))).toBe('failed');
    expect(await outcomeOf(() => new Promise(() => undefined), { timeoutMs: 20 })).toBe('cantTell');
  });

  it('does not run cases of unclaimed profiles or unadvertised features', async () => {
    const opts = options();
    const untested = await runCase(
      testCase(() => Promise.resolve(), { profiles: ['task-execution'] }),
      opts,
    );
    expect(untested).toMatchObject({ outcome: 'untested', attempts: [] });
    const inapplicable = await runCase(
      testCase(() => Promise.resolve(), { features: ['urn:x#y'] }),
      opts,
    );
    expect(inapplicable.outcome).toBe('inapplicable');
    expect(inapplicable.reason).toContain('urn:x#y');
    expect(opts.attempts).toBe(0);
  });

  it('fails a case whose own assertions passed when the wire checks reject what the SUT sent', async () => {
    const base = options({ rerunFailures: false });
    const result = await runCase(
      testCase(() => Promise.resolve()),
      {
        ...base,
        prepare: (c, seed, warn, attempt) => ({
          ...base.prepare(c, seed, warn, attempt),
          verify: () =>
            Promise.reject(new RequirementViolation('schema.base-structures-valid', 'valid', '<bad/>')),
        }),
      },
    );
    expect(result.outcome).toBe('failed');
    expect(result.attempts[0]?.violation?.requirement).toBe('schema.base-structures-valid');
  });

  it('gives the case the seed derived from the run seed and its ID', async () => {
    let seen = -1;
    const result = await runCase(
      testCase((context) => {
        seen = context.random.seed;
        return Promise.resolve();
      }),
      options(),
    );
    expect(seen).toBe(caseSeed(1, 'gateway-info.case'));
    expect(result.seed).toBe(seen);
  });
});
