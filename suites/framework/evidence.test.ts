import { describe, expect, it } from 'vitest';
import { Transcript } from '../../harness/driver/index.ts';
import type { ProfileId } from '../../protocol/profiles.ts';
import { AttemptBudget } from './budget.ts';
import type { ConformanceCase } from './case.ts';
import type { CaseContext, SutFacts } from './context.ts';
import { AttemptEvidence, checkHeld, withEvidence } from './evidence.ts';
import { expectError, expectThat } from './expect.ts';
import { runCase, type CaseAttempt, type RunCaseOptions } from './run-case.ts';
import { SeededRandom } from './seeded-random.ts';
import { exchangeOf } from './test-support/iq-exchange.ts';
import { CannotTell, MissingFixture, RequirementViolation } from './verdicts.ts';

const sut: SutFacts = {
  name: 'sut',
  gatewayJid: 'agents.example',
  profiles: new Set<ProfileId>(['core-directory']),
  features: new Set(),
  replyTimeoutMs: 1000,
  taskTimeoutMs: 1000,
};

const ITEM_NOT_FOUND =
  "<iq xmlns='jabber:client' type='error' id='a' from='x@agents.example'><error type='cancel'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>";

function testCase(run: ConformanceCase['run']): ConformanceCase {
  return {
    id: 'gateway-info.case',
    section: 'gateway-info',
    requirements: ['gateway-info.identity'],
    profiles: ['core-directory'],
    level: 'MUST',
    statement: 'statement',
    run,
  };
}

/** Options whose attempts dispose with `dispose` (default: nothing to close). */
function options(
  dispose: () => Promise<void> = () => Promise.resolve(),
  overrides: Partial<RunCaseOptions> = {},
): RunCaseOptions {
  return {
    sut,
    runSeed: 1,
    defaultTimeoutMs: 2_000,
    rerunFailures: false,
    prepare: (_, seed, warn) => {
      const context = {
        sut,
        callers: {} as CaseContext['callers'],
        random: new SeededRandom(seed),
        budget: new AttemptBudget(false),
        warn: (requirement, message) => {
          warn({ requirement, message });
        },
      } satisfies CaseContext;
      return { context, transcript: new Transcript('t'), dispose } satisfies CaseAttempt;
    },
    ...overrides,
  };
}

/** A promise that rejects with `reason` once the current turn of the event loop is over. */
function rejectingSoon(reason: Error): Promise<never> {
  return new Promise((_, reject) => {
    setImmediate(() => {
      reject(reason);
    });
  });
}

describe('evidence behind a pass', () => {
  it('turns a case that returns without one check that held into cantTell, naming why', async () => {
    const result = await runCase(
      testCase(() => Promise.resolve()),
      options(),
    );
    expect(result.outcome).toBe('cantTell');
    expect(result.reason).toMatch(/^decided no check/);
    expect(result.attempts[0]?.checks).toBe(0);
    expect(result.attempts[0]?.transcriptText).toContain('evidence: 0 check(s) held');
  });

  it('counts every verifier that held and the requirements they decided', async () => {
    const result = await runCase(
      testCase(() => {
        expectThat('<a/>', 'gateway-info.identity', 'a', true);
        expectError(exchangeOf(ITEM_NOT_FOUND), 'errors.not-found-equivalence', 'item-not-found');
        checkHeld('gateway-info.identity');
        return Promise.resolve();
      }),
      options(),
    );
    expect(result.outcome).toBe('passed');
    expect(result.attempts[0]?.checks).toBe(3);
    expect(result.attempts[0]?.decided).toEqual(['gateway-info.identity', 'errors.not-found-equivalence']);
    expect(result.attempts[0]?.transcriptText).toContain(
      'evidence: 3 check(s) held (gateway-info.identity, errors.not-found-equivalence)',
    );
  });

  it('does not count a verifier that failed', async () => {
    const result = await runCase(
      testCase(() => {
        expectThat('<b/>', 'gateway-info.identity', 'a', false);
        return Promise.resolve();
      }),
      options(),
    );
    expect(result.outcome).toBe('failed');
    expect(result.attempts[0]?.checks).toBe(0);
  });

  it('keeps the counts of attempts that run side by side apart', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const checking = (count: number) =>
      testCase(async () => {
        for (let index = 0; index < count; index += 1) {
          await gate;
          checkHeld('gateway-info.identity');
        }
      });
    const both = Promise.all([runCase(checking(2), options()), runCase(checking(5), options())]);
    release();
    const [two, five] = await both;
    expect(two.attempts[0]?.checks).toBe(2);
    expect(five.attempts[0]?.checks).toBe(5);
  });

  it('records nothing outside an attempt (a verifier in the preflight or a unit test)', async () => {
    const evidence = new AttemptEvidence();
    checkHeld('gateway-info.identity');
    await withEvidence(evidence, () => Promise.resolve());
    checkHeld('gateway-info.identity');
    expect(evidence.checks).toBe(0);
  });
});

describe('rejections a case leaves behind', () => {
  it('fail a case that returned after its checks with the violation of a promise it did not await', async () => {
    const result = await runCase(
      testCase(() => {
        void rejectingSoon(new RequirementViolation('gateway-info.identity', 'one identity', '<iq/>'));
        checkHeld('gateway-info.identity');
        return Promise.resolve();
      }),
      options(),
    );
    expect(result.outcome).toBe('failed');
    expect(result.attempts[0]?.violation?.requirement).toBe('gateway-info.identity');
    expect(result.reason).toMatch(/left a promise unawaited that rejected/);
  });

  it('give the outcome when the rejection comes while the attempt is disposed', async () => {
    let pending: (reason: unknown) => void = () => undefined;
    const result = await runCase(
      testCase(() => {
        // Like an IQ still awaited when the attempt's callers close.
        void new Promise((_, reject) => {
          pending = reject;
        });
        checkHeld('gateway-info.identity');
        return Promise.resolve();
      }),
      options(() => {
        pending(new CannotTell('the caller closed before the reply'));
        return Promise.resolve();
      }),
    );
    expect(result.outcome).toBe('cantTell');
    expect(result.reason).toContain('the caller closed before the reply');
  });

  it('keep the case’s own verdict first and note the rest in the transcript (the errors.no-payload-echo crash)', async () => {
    const result = await runCase(
      testCase(() => {
        const checks = [rejectingSoon(new Error('registration refused')), rejectingSoon(new Error('again'))];
        // The case throws before it awaits what it started.
        if (checks.length > 0) throw new MissingFixture('the run has no fixture world');
        return Promise.all(checks).then(() => undefined);
      }),
      options(),
    );
    expect(result.outcome).toBe('cantTell');
    expect(result.reason).toBe('the run has no fixture world');
    const text = result.attempts[0]?.transcriptText ?? '';
    expect(text).toContain(
      'left behind: a promise the case did not await rejected: Error: registration refused',
    );
    expect(text).toContain('left behind: a promise the case did not await rejected: Error: again');
  });

  it('hand a rejection that comes after the report to the runner', async () => {
    const late: { caseId: string; reason: unknown }[] = [];
    let rejectLater: (reason: unknown) => void = () => undefined;
    const result = await runCase(
      testCase(() => {
        void new Promise((_, reject) => {
          rejectLater = reject;
        });
        checkHeld('gateway-info.identity');
        return Promise.resolve();
      }),
      options(undefined, {
        lateRejection: (caseId, reason) => {
          late.push({ caseId, reason });
        },
      }),
    );
    expect(result.outcome).toBe('passed');
    const reason = new Error('too late');
    rejectLater(reason);
    await new Promise((resolve) => {
      setImmediate(resolve);
    });
    expect(late).toEqual([{ caseId: 'gateway-info.case', reason }]);
  });
});
