// The runner's decisions without servers: verdicts from made-up results, the table, the exit
// code, equivalent mutants, stale patches and the budget.
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/repo-root.ts';
import type { DiffPatch } from '../harness/sut/source-variant.ts';
import { parseUnifiedDiff } from '../harness/sut/unified-diff.ts';
import type { Outcome } from '../suites/framework/outcome.ts';
import { exitCodeOf, formatTable, judgeRun, selectMutants, summaryOf, type JudgedRun } from './judge.ts';
import type { Mutant } from './mutant.ts';
import { runMutants } from './runner.ts';

/** A one-line change of `file` as a patch file holds it. */
function lineChange(file: string, from: string, to: string): DiffPatch {
  const [diff] = parseUnifiedDiff(`--- a/${file}\n+++ b/${file}\n@@ -1 +1 @@\n-${from}\n+${to}\n`);
  if (diff === undefined) throw new Error('no diff');
  return { ...diff, source: `mutants/patches/${file}.patch` };
}

const FAULTS = 'reference-gateway/iq/faults.ts';
const APPLIES = lineChange(
  FAULTS,
  "  badRequest: Object.freeze({ condition: 'bad-request', type: 'modify' }),",
  "  badRequest: Object.freeze({ condition: 'bad-request', type: 'cancel' }),",
);

function mutant(name: string, extra: Partial<Mutant> = {}): Mutant {
  return {
    name,
    change: 'a test mutant',
    bugClass: 'error-type',
    requirements: ['task-recovery.malformed-id-bad-request'],
    profile: 'task-execution',
    scenario: 'bad-input',
    grep: ['task-recovery.malformed-task-id'],
    patches: [APPLIES],
    ...extra,
  };
}

interface CaseSpec {
  readonly id: string;
  readonly outcome: Outcome;
  readonly flaky?: boolean;
  readonly violation?: string;
  readonly warning?: string;
  readonly reason?: string;
}

function run(passed: boolean, cases: readonly CaseSpec[], verdict = passed ? 'passed' : 'failed'): JudgedRun {
  return {
    passed,
    selection: { selectedCases: cases.length },
    cases: cases.map((spec) => ({
      case: { id: spec.id },
      outcome: spec.outcome,
      ...(spec.flaky === undefined ? {} : { flaky: spec.flaky }),
      ...(spec.reason === undefined ? {} : { reason: spec.reason }),
      attempts: [
        {
          ...(spec.violation === undefined ? {} : { violation: { requirement: spec.violation } }),
          warnings: spec.warning === undefined ? [] : [{ requirement: spec.warning }],
        },
      ],
    })),
    profiles: [
      { profile: 'task-execution', claimed: true, verdict },
      { profile: 'human-messaging', claimed: false, verdict: 'not-claimed' },
    ],
    preflight: [],
  };
}

const KILLING_RUN = run(false, [
  {
    id: 'task-recovery.other-caller-like-nonexistent',
    outcome: 'cantTell',
    reason: 'no second account\nmore',
  },
  {
    id: 'task-recovery.malformed-task-id',
    outcome: 'failed',
    violation: 'task-recovery.malformed-id-bad-request',
  },
]);

describe('judgeRun', () => {
  it('names the failed case and the requirement it cited first, undecided cases after it', () => {
    const verdict = judgeRun(mutant('m'), KILLING_RUN);
    expect(verdict).toEqual({
      kind: 'killed',
      killers: [
        {
          caseId: 'task-recovery.malformed-task-id',
          requirement: 'task-recovery.malformed-id-bad-request',
          outcome: 'failed',
        },
        {
          caseId: 'task-recovery.other-caller-like-nonexistent',
          requirement: 'no requirement cited: no second account',
          outcome: 'cantTell',
        },
      ],
      profiles: ['task-execution: failed'],
      citesClaim: true,
    });
  });

  it('tells a kill through another requirement from one through the claimed one', () => {
    const other = run(false, [
      { id: 'errors.unhandled-iq', outcome: 'failed', violation: 'errors.unhandled-iq-error' },
    ]);
    const verdict = judgeRun(mutant('m'), other);
    expect(verdict.kind === 'killed' && verdict.citesClaim).toBe(false);
  });

  it('counts a SHOULD warning that failed the profile under --strict', () => {
    const strict = run(false, [
      { id: 'search.case-insensitive', outcome: 'passed', warning: 'search.case-insensitive' },
    ]);
    const verdict = judgeRun(
      mutant('m', { strict: true, requirements: ['search.case-insensitive'] }),
      strict,
    );
    expect(verdict).toMatchObject({
      kind: 'killed',
      killers: [{ caseId: 'search.case-insensitive', outcome: 'warned' }],
      citesClaim: true,
    });
  });

  it('does not count a run that only undecided cases kept from passing as a kill', () => {
    const undecided = run(
      false,
      [{ id: 'invocation.crash-on-the-wire', outcome: 'cantTell', reason: 'no kill point was reached' }],
      'incomplete',
    );
    expect(judgeRun(mutant('m'), undecided)).toEqual({
      kind: 'undecided',
      killers: [
        {
          caseId: 'invocation.crash-on-the-wire',
          requirement: 'no requirement cited: no kill point was reached',
          outcome: 'cantTell',
        },
      ],
      profiles: ['task-execution: incomplete'],
    });
    // A preflight finding fails the profile although its cases only could not tell.
    const blocked = {
      ...undecided,
      profiles: [{ profile: 'interactive-tasks', claimed: true, verdict: 'failed' }],
    };
    expect(judgeRun(mutant('m'), blocked).kind).toBe('killed');
  });

  it('cites the profile claim for a preflight finding, and counts it for a false-claim mutant only', () => {
    const blocked: JudgedRun = {
      ...run(
        false,
        [
          {
            id: 'cancellation.stale-revision-refused',
            outcome: 'cantTell',
            reason: 'blocked by the preflight: …',
          },
        ],
        'incomplete',
      ),
      profiles: [{ profile: 'interactive-tasks', claimed: true, verdict: 'failed' }],
      preflight: [
        {
          profile: 'interactive-tasks',
          kind: 'missing',
          message: 'the script tool does not advertise #cancel\nmore',
        },
        { profile: 'admin-provisioning', kind: 'untestable', message: 'no #admin' },
      ],
    };
    const claim = judgeRun(mutant('off', { requirements: [], falseClaim: true }), blocked);
    expect(claim).toMatchObject({
      kind: 'killed',
      killers: [
        {
          caseId: 'preflight',
          requirement:
            'the profile claim (#conformance, interp-43): the script tool does not advertise #cancel',
          outcome: 'failed',
        },
        { caseId: 'cancellation.stale-revision-refused', outcome: 'cantTell' },
      ],
      citesClaim: true,
    });
    // Any other mutant the preflight stops was not caught for the requirement it claims to break.
    const other = judgeRun(mutant('m'), blocked);
    expect(other.kind === 'killed' && other.citesClaim).toBe(false);
  });

  it('counts a case that violated a requirement once and not when re-run (flaky) as a kill', () => {
    const flaky = run(
      false,
      [
        {
          id: 'security.admin-authentication',
          outcome: 'cantTell',
          flaky: true,
          violation: 'security.admin-authentication',
          reason: 'flaky: failed, then passed when re-run alone',
        },
      ],
      'incomplete',
    );
    expect(judgeRun(mutant('m', { requirements: ['security.admin-authentication'] }), flaky)).toMatchObject({
      kind: 'killed',
      killers: [{ caseId: 'security.admin-authentication', outcome: 'flaky' }],
      citesClaim: true,
    });
  });

  it('calls a passing run a survivor and a run that selected nothing an error', () => {
    expect(judgeRun(mutant('m'), run(true, [{ id: 'a', outcome: 'passed' }]))).toEqual({
      kind: 'survived',
      cases: 1,
    });
    expect(judgeRun(mutant('m'), run(true, []))).toMatchObject({ kind: 'error' });
  });
});

describe('runMutants, the table and the exit code', () => {
  const results = new Map<string, JudgedRun | Error>([
    ['killed', KILLING_RUN],
    ['survivor', run(true, [{ id: 'a', outcome: 'passed' }])],
    ['equivalent-survivor', run(true, [{ id: 'a', outcome: 'passed' }])],
    ['equivalent-killed', KILLING_RUN],
    ['crashed', new Error('agentconf run wrote no result.json (exit 3):\nstack')],
    ['undecided', run(false, [{ id: 'a', outcome: 'cantTell', reason: 'load' }], 'incomplete')],
  ]);
  const judge = (m: Mutant): Promise<JudgedRun> => {
    const result = results.get(m.name);
    if (result === undefined) throw new Error(`judge called for ${m.name}`);
    return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
  };

  it('runs each mutant once, in order, and judges each row', async () => {
    const stale = mutant('stale', {
      patches: [lineChange(FAULTS, 'text that is not there', '')],
    });
    const { rows, skipped } = await runMutants(
      [
        mutant('killed'),
        mutant('survivor'),
        mutant('equivalent-survivor', { equivalent: 'checked twice' }),
        mutant('equivalent-killed', { equivalent: 'wrongly marked' }),
        stale,
        mutant('crashed'),
        mutant('undecided'),
      ],
      { root: REPO_ROOT, judge },
    );
    expect(skipped).toEqual([]);
    expect(rows.map((row) => [row.mutant.name, row.verdict.kind])).toEqual([
      ['killed', 'killed'],
      ['survivor', 'survived'],
      ['equivalent-survivor', 'survived'],
      ['equivalent-killed', 'killed'],
      ['stale', 'stale'],
      ['crashed', 'error'],
      ['undecided', 'undecided'],
    ]);
    const table = formatTable(rows).split('\n');
    expect(table[0]).toMatch(/^mutant +requirement +outcome +time$/);
    expect(table[1]).toContain(
      'killed by task-recovery.malformed-task-id (task-recovery.malformed-id-bad-request) +1',
    );
    expect(table[2]).toContain('SURVIVED (1 cases ran)');
    expect(table[3]).toContain('survived, equivalent: checked twice');
    expect(table[4]).toContain('[MARKED EQUIVALENT: fix the catalog]');
    expect(table[5]).toContain('PATCH DOES NOT APPLY');
    expect(table[5]).toContain('no longer occurs');
    expect(table[6]).toContain('ERROR: agentconf run wrote no result.json (exit 3):');
    expect(table[7]).toContain('UNDECIDED (not killed, re-run): a: no requirement cited: load');
    expect(summaryOf(rows)).toBe(
      '7 mutants: 2 killed, 1 survived, 0 known gaps, 1 equivalent, 1 undecided, 1 stale, 1 errors',
    );
  });

  it('exits 0 only when every mutant was killed or is an equivalent survivor', async () => {
    const clean = await runMutants(
      [mutant('killed'), mutant('equivalent-survivor', { equivalent: 'checked twice' })],
      { root: REPO_ROOT, judge },
    );
    expect(exitCodeOf(clean.rows)).toBe(0);
    for (const bad of [
      mutant('survivor'),
      mutant('undecided'),
      mutant('equivalent-killed', { equivalent: 'x' }),
      mutant('crashed'),
      mutant('stale', { patches: [lineChange(FAULTS, 'nowhere to be found', '')] }),
    ]) {
      const { rows } = await runMutants([mutant('killed'), bad], { root: REPO_ROOT, judge });
      expect(exitCodeOf(rows), bad.name).toBe(1);
    }
  });

  it('lets a known gap survive without failing, and refuses a known gap that is killed', async () => {
    const gap = await runMutants([mutant('survivor', { knownGap: 'no case fills the task capacity' })], {
      root: REPO_ROOT,
      judge,
    });
    expect(exitCodeOf(gap.rows)).toBe(0);
    expect(formatTable(gap.rows)).toContain('SURVIVED, known gap: no case fills the task capacity');
    expect(summaryOf(gap.rows)).toContain('0 survived, 1 known gaps');
    const fixed = await runMutants([mutant('killed', { knownGap: 'stale mark' })], {
      root: REPO_ROOT,
      judge,
    });
    expect(exitCodeOf(fixed.rows)).toBe(1);
    expect(formatTable(fixed.rows)).toContain('[MARKED A KNOWN GAP: remove the mark]');
  });

  it('never judges a mutant whose patch does not apply (the judge is not called)', async () => {
    const { rows } = await runMutants(
      [mutant('not-in-the-map', { patches: [{ ...APPLIES, file: 'reference-gateway/no-such-file.ts' }] })],
      { root: REPO_ROOT, judge },
    );
    expect(rows[0]?.verdict.kind).toBe('stale');
  });

  it('stops before the next mutant would overrun the budget', async () => {
    let clock = 0;
    const slow = (m: Mutant): Promise<JudgedRun> => {
      clock += 100_000;
      return judge(m);
    };
    const mutants = [mutant('killed'), mutant('killed'), mutant('killed')];
    const { rows, skipped } = await runMutants(mutants, {
      root: REPO_ROOT,
      judge: slow,
      budgetMinutes: 4,
      now: () => clock,
    });
    expect(rows).toHaveLength(2);
    expect(skipped).toHaveLength(1);
  });
});

describe('selectMutants', () => {
  const catalog = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => mutant(name));

  it('takes the named mutants, and refuses a name the catalog lacks', () => {
    expect(selectMutants(catalog, { seed: 1, only: ['c', 'a'] }).map((m) => m.name)).toEqual(['a', 'c']);
    expect(() => selectMutants(catalog, { seed: 1, only: ['zz'] })).toThrow('no mutant named zz');
  });

  it('keeps catalog order without a budget and a seeded permutation with one', () => {
    expect(selectMutants(catalog, { seed: 1 }).map((m) => m.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    const first = selectMutants(catalog, { seed: 5, budgetMinutes: 10 }).map((m) => m.name);
    expect(selectMutants(catalog, { seed: 5, budgetMinutes: 10 }).map((m) => m.name)).toEqual(first);
    expect(first.toSorted()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    const orders = new Set(
      [1, 2, 3, 4, 5, 6].map((seed) =>
        selectMutants(catalog, { seed, budgetMinutes: 10 })
          .map((m) => m.name)
          .join(),
      ),
    );
    expect(orders.size).toBeGreaterThan(1);
  });
});
