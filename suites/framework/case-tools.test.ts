import { describe, expect, it } from 'vitest';
import { Transcript } from '../../harness/driver/index.ts';
import { decideSetup, MissingSoftware } from '../../harness/federation/debian-packages.ts';
import { ensureToolsFor } from '../../harness/system-tools-ensure.ts';
import { SYSTEM_TOOLS } from '../../harness/system-tools.ts';
import type { ProfileId } from '../../protocol/profiles.ts';
import { ALL_SUITES } from '../index.ts';
import { AttemptBudget } from './budget.ts';
import { defineSuite, type ConformanceCase } from './case.ts';
import { missingToolReason, withDeclaredTools } from './case-tools.ts';
import { checkHeld } from './evidence.ts';
import type { CaseContext, StorageFaultControl, SutControl, SutFacts } from './context.ts';
import { runCase } from './run-case.ts';
import { SeededRandom } from './seeded-random.ts';

const SUT: SutFacts = {
  name: 'sut',
  gatewayJid: 'agents.example',
  profiles: new Set<ProfileId>(['task-execution']),
  features: new Set(),
  replyTimeoutMs: 1000,
  taskTimeoutMs: 1000,
};

const storage: StorageFaultControl = {
  failWhile: () => Promise.reject(new Error('not in this test')),
};

const restart = (): Promise<void> => Promise.resolve();
const sutControl: SutControl = {
  crashAndRestart: restart,
  freeze: () => Promise.resolve(),
  thaw: () => Promise.resolve(),
  storage,
};

function storageCase(overrides: Partial<ConformanceCase> = {}): ConformanceCase {
  return {
    id: 'invocation.uses-storage',
    section: 'invocation',
    requirements: ['invocation.durable-before-accepted'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement: 'statement',
    run: () => {
      checkHeld('invocation.durable-before-accepted');
      return Promise.resolve();
    },
    ...overrides,
  };
}

/** Runs `testCase` once against SUT facts `sut`, handing it what the session would. */
async function outcomeOf(testCase: ConformanceCase, sut: SutFacts = SUT) {
  const handed: CaseContext[] = [];
  const result = await runCase(testCase, {
    sut,
    runSeed: 1,
    defaultTimeoutMs: 500,
    rerunFailures: false,
    prepare: (_, seed) => {
      const context: CaseContext = {
        sut,
        callers: {} as CaseContext['callers'],
        random: new SeededRandom(seed),
        budget: new AttemptBudget(false),
        sutControl,
        warn: () => undefined,
      };
      handed.push(context);
      return { context, transcript: new Transcript('t'), dispose: () => Promise.resolve() };
    },
  });
  return { result, handed };
}

describe('the system tools a case declares', () => {
  it('hand it the storage faults only when it declares libfiu', async () => {
    const seen: (StorageFaultControl | undefined)[] = [];
    const run = (context: CaseContext): Promise<void> => {
      seen.push(context.sutControl?.storage);
      return Promise.resolve();
    };
    await outcomeOf(storageCase({ run }));
    await outcomeOf(storageCase({ run, needs: ['libfiu'] }));
    expect(seen).toEqual([undefined, storage]);
  });

  it('leave the rest of the control as it is', () => {
    const narrowed = withDeclaredTools(storageCase(), {
      sut: SUT,
      callers: {} as CaseContext['callers'],
      random: new SeededRandom(1),
      budget: new AttemptBudget(false),
      sutControl,
      warn: () => undefined,
    });
    expect(Object.keys(narrowed.sutControl ?? {}).sort()).toEqual(['crashAndRestart', 'freeze', 'thaw']);
    expect(narrowed.sutControl).toHaveProperty('crashAndRestart', restart);
  });

  it('make the case cantTell, naming the tool and the command, when this machine lacks it', async () => {
    let ran = false;
    const testCase = storageCase({
      needs: ['libfiu'],
      run: () => {
        ran = true;
        return Promise.resolve();
      },
    });
    // What a run decides without root: the installer refuses, the run records the tool missing.
    const missingTools = await ensureToolsFor(
      [testCase],
      () => undefined,
      (tool) => {
        const setup = decideSetup(tool, {
          programPath: undefined,
          missingPackages: tool.packages,
          isRoot: false,
          hasApt: true,
        });
        return Promise.reject(new MissingSoftware(tool, setup.action === 'refuse' ? setup.reason : '', ''));
      },
    );
    const { result } = await outcomeOf(testCase, { ...SUT, missingTools });
    expect(ran).toBe(false);
    expect(result.outcome).toBe('cantTell');
    expect(result.reason).toBe(
      'needs libfiu (fiu-utils), which is not installed here: sudo apt-get install -y fiu-utils',
    );
    expect(missingToolReason('libfiu')).toBe(result.reason);
    // A case that does not declare it runs as usual.
    expect((await outcomeOf(storageCase(), { ...SUT, missingTools })).result.outcome).toBe('passed');
  });

  it('must name entries of the table (checked when the suite is defined)', () => {
    const declaration = {
      id: 'invocation.typo' as const,
      requirements: ['invocation.durable-before-accepted'] as const,
      profiles: ['task-execution'] as const,
      level: 'MUST' as const,
      statement: 's',
      needs: ['fiu' as 'libfiu'],
      run: () => Promise.resolve(),
    };
    expect(() => defineSuite('invocation', 'Invocation', [declaration])).toThrow(
      /^"fiu" is not a system tool \(harness\/system-tools\.ts has /,
    );
  });
});

describe('the suites and the table of system tools', () => {
  const cases = ALL_SUITES.flatMap((suite) => suite.cases);

  it('every tool a case declares is in the table', () => {
    const unknown = cases.flatMap((testCase) =>
      (testCase.needs ?? []).filter((id) => !SYSTEM_TOOLS.has(id)).map((id) => `${testCase.id}: ${id}`),
    );
    expect(unknown).toEqual([]);
  });

  it.each([...SYSTEM_TOOLS.values()].map((tool) => [tool.id, tool] as const))(
    "%s: the table's cases are exactly the cases declaring it",
    (id, tool) => {
      const declaring = cases.filter((testCase) => testCase.needs?.includes(id) === true).map((c) => c.id);
      expect([...tool.cases].sort()).toEqual(declaring.sort());
    },
  );
});
