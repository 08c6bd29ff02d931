/**
 * What the mutant runner decides, apart from starting anything: which mutants a run takes, the
 * verdict on one mutant from its focused run's RunResult, the table and the exit code. The CLI
 * (run-mutants.ts) only builds copies and starts runs; the unit tests drive these functions with
 * hand-made results.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PatchDoesNotApply, applyPatch } from '../harness/sut/source-variant.ts';
import type { Outcome } from '../suites/framework/outcome.ts';
import { SeededRandom } from '../suites/framework/seeded-random.ts';
import type { Mutant } from './mutant.ts';

/** A case that kept the run from passing, with the requirement it cited. */
export interface Killer {
  readonly caseId: string;
  /** The violated requirement, or how the case ended without citing one. */
  readonly requirement: string;
  /**
   * 'flaky': failed citing the requirement, then passed or could not tell when re-run (the
   * runner calls that cantTell; one violation is still evidence against a mutant, since a
   * conforming gateway never violates). 'warned': a passing case's SHOULD finding, which fails the profile under --strict.
   */
  readonly outcome: 'failed' | 'flaky' | 'cantTell' | 'warned';
}

export type MutantVerdict =
  | {
      readonly kind: 'killed';
      readonly killers: readonly Killer[];
      /** Claimed profiles that did not pass, as `profile: verdict`. */
      readonly profiles: readonly string[];
      /** A killer cited one of the requirements the mutant claims to break. */
      readonly citesClaim: boolean;
    }
  /**
   * The run did not pass, but only because cases could not decide (cantTell: load, a missing
   * fixture): no evidence against the mutant. Re-run it; it is not counted as killed.
   */
  | { readonly kind: 'undecided'; readonly killers: readonly Killer[]; readonly profiles: readonly string[] }
  | { readonly kind: 'survived'; readonly cases: number }
  /** A patch no longer applies: the catalog must follow the code. */
  | { readonly kind: 'stale'; readonly message: string }
  /** The run could not judge it (no case selected, no result, a crash). */
  | { readonly kind: 'error'; readonly message: string };

export interface MutantRow {
  readonly mutant: Mutant;
  readonly verdict: MutantVerdict;
  readonly seconds: number;
}

/** The first line of a reason, cut short for the table. */
function firstLine(text: string | undefined): string {
  const line = (text ?? '').split('\n')[0] ?? '';
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}

/** The parts of a RunResult (runner/run-result.ts) a verdict reads. */
export interface JudgedRun {
  readonly passed: boolean;
  readonly selection: { readonly selectedCases: number };
  readonly cases: readonly {
    readonly case: { readonly id: string };
    readonly outcome: Outcome;
    readonly reason?: string;
    readonly attempts: readonly {
      readonly violation?: { readonly requirement: string };
      readonly warnings: readonly { readonly requirement: string }[];
    }[];
  }[];
  readonly profiles: readonly {
    readonly profile: string;
    readonly claimed: boolean;
    readonly verdict: string;
  }[];
  /** What the preflight found before any case (suites/framework/preflight.ts). */
  readonly preflight: readonly {
    readonly profile: string;
    readonly kind: string;
    readonly message: string;
  }[];
}

/** How a kill by the preflight is cited: the claim it refutes, not a requirement sentence. */
export const PREFLIGHT_KILLER = 'preflight';
export const PROFILE_CLAIM_CITATION = 'the profile claim (#conformance, interp-43)';

/** The verdict on `mutant` from the result of its focused run. */
export function judgeRun(mutant: Mutant, result: JudgedRun): MutantVerdict {
  if (result.selection.selectedCases === 0) {
    return { kind: 'error', message: `--grep ${mutant.grep.join(' ')} selected no case` };
  }
  if (result.passed) return { kind: 'survived', cases: result.selection.selectedCases };
  const killers: Killer[] = [];
  for (const caseResult of result.cases) {
    if (caseResult.outcome === 'passed') {
      // Under --strict a finding on a passing case fails its profile.
      const warning = caseResult.attempts.at(-1)?.warnings[0];
      if (warning !== undefined) {
        killers.push({ caseId: caseResult.case.id, requirement: warning.requirement, outcome: 'warned' });
      }
      continue;
    }
    if (caseResult.outcome !== 'failed' && caseResult.outcome !== 'cantTell') continue;
    const violation = caseResult.attempts.findLast((attempt) => attempt.violation !== undefined)?.violation;
    // Violated in one attempt, then passed or could not tell when re-run (state the first attempt
    // left behind can do that): the violation stands.
    const flaky = caseResult.outcome === 'cantTell' && violation !== undefined;
    killers.push({
      caseId: caseResult.case.id,
      requirement: violation?.requirement ?? `no requirement cited: ${firstLine(caseResult.reason)}`,
      outcome: flaky ? 'flaky' : caseResult.outcome,
    });
  }
  // A claimed profile whose required features are not advertised: the claim itself is refuted.
  for (const finding of result.preflight) {
    if (finding.kind !== 'missing') continue;
    killers.push({
      caseId: PREFLIGHT_KILLER,
      requirement: `${PROFILE_CLAIM_CITATION}: ${firstLine(finding.message)}`,
      outcome: 'failed',
    });
  }
  // Failures first: a case that decided against the mutant says more than one that could not
  // tell; a warning counts only because of --strict.
  const rank = { failed: 0, flaky: 1, cantTell: 2, warned: 3 } as const;
  killers.sort((a, b) => rank[a.outcome] - rank[b.outcome]);
  const unpassed = result.profiles.filter(
    (entry) => entry.claimed && entry.verdict !== 'passed' && entry.verdict !== 'not-assessed',
  );
  const profiles = unpassed.map((entry) => `${entry.profile}: ${entry.verdict}`);
  // Evidence: a case decided against the mutant, or a profile FAILED (a preflight finding, a
  // --strict warning). Undecided cases alone prove nothing.
  const decided =
    killers.some((killer) => killer.outcome === 'failed' || killer.outcome === 'flaky') ||
    unpassed.some((entry) => entry.verdict === 'failed');
  if (!decided) return { kind: 'undecided', killers, profiles };
  const claimed = new Set<string>(mutant.requirements);
  return {
    kind: 'killed',
    killers,
    profiles,
    citesClaim: killers.some(
      (killer) =>
        claimed.has(killer.requirement) || (mutant.falseClaim === true && killer.caseId === PREFLIGHT_KILLER),
    ),
  };
}

/** Throws PatchDoesNotApply when a patch of `mutant` no longer applies to the tree at `root`. */
export function checkPatches(mutant: Mutant, root: string): void {
  const texts = new Map<string, string>();
  for (const patch of mutant.patches) {
    const path = join(root, patch.file);
    if (!texts.has(patch.file) && !existsSync(path)) {
      throw new PatchDoesNotApply(`variant ${mutant.name}: ${patch.file} does not exist`);
    }
    const text = texts.get(patch.file) ?? readFileSync(path, 'utf8');
    texts.set(patch.file, applyPatch(text, patch, mutant.name));
  }
}

/** A row is acceptable: killed, or an equivalent mutant or a known gap that survived. */
export function rowIsClean(row: MutantRow): boolean {
  const { verdict, mutant } = row;
  if (mutant.equivalent !== undefined || mutant.knownGap !== undefined) return verdict.kind === 'survived';
  return verdict.kind === 'killed';
}

/**
 * 0 when every row is clean; 1 otherwise (a survivor, an undecided run, a stale patch, an error, a
 * killed equivalent).
 */
export function exitCodeOf(rows: readonly MutantRow[]): number {
  return rows.every(rowIsClean) ? 0 : 1;
}

function outcomeText(row: MutantRow): string {
  const { verdict, mutant } = row;
  switch (verdict.kind) {
    case 'killed': {
      const [first] = verdict.killers;
      const by =
        first === undefined
          ? `profile ${verdict.profiles.join(', ')}`
          : `${first.caseId} (${first.requirement})${first.outcome === 'failed' ? '' : ` ${first.outcome}`}`;
      const more = verdict.killers.length > 1 ? ` +${String(verdict.killers.length - 1)}` : '';
      const mark = verdict.citesClaim ? '' : ' [other requirement]';
      const equivalent =
        mutant.equivalent !== undefined
          ? ' [MARKED EQUIVALENT: fix the catalog]'
          : mutant.knownGap !== undefined
            ? ' [MARKED A KNOWN GAP: remove the mark]'
            : '';
      return `killed by ${by}${more}${mark}${equivalent}`;
    }
    case 'undecided': {
      const [first] = verdict.killers;
      const by = first === undefined ? verdict.profiles.join(', ') : `${first.caseId}: ${first.requirement}`;
      return `UNDECIDED (not killed, re-run): ${by}`;
    }
    case 'survived':
      if (mutant.equivalent !== undefined) return `survived, equivalent: ${mutant.equivalent}`;
      if (mutant.knownGap !== undefined) return `SURVIVED, known gap: ${mutant.knownGap}`;
      return `SURVIVED (${String(verdict.cases)} cases ran)`;
    case 'stale':
      return `PATCH DOES NOT APPLY: ${verdict.message}`;
    case 'error':
      return `ERROR: ${verdict.message}`;
  }
}

function requirementText(mutant: Mutant): string {
  if (mutant.requirements.length === 0 && mutant.falseClaim === true) return PROFILE_CLAIM_CITATION;
  const [first, ...rest] = mutant.requirements;
  return `${first ?? ''}${rest.length > 0 ? ` +${String(rest.length)}` : ''}`;
}

/** The table the runner prints: mutant, requirement, outcome (the killing case and the requirement it cited), time. */
export function formatTable(rows: readonly MutantRow[]): string {
  const header = ['mutant', 'requirement', 'outcome', 'time'];
  const body = rows.map((row) => [
    row.mutant.name,
    requirementText(row.mutant),
    outcomeText(row),
    `${row.seconds.toFixed(1)} s`,
  ]);
  const table = [header, ...body];
  const widths = header.map((_, column) => Math.max(...table.map((cells) => (cells[column] ?? '').length)));
  return table
    .map((cells) =>
      cells
        .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join('  '),
    )
    .join('\n');
}

/** Counts for the closing line. */
export function summaryOf(rows: readonly MutantRow[]): string {
  const count = (test: (row: MutantRow) => boolean): number => rows.filter(test).length;
  const killed = count((row) => row.verdict.kind === 'killed');
  const equivalent = count((row) => row.mutant.equivalent !== undefined && row.verdict.kind === 'survived');
  const gaps = count((row) => row.mutant.knownGap !== undefined && row.verdict.kind === 'survived');
  const survived =
    count((row) => row.mutant.equivalent === undefined && row.verdict.kind === 'survived') - gaps;
  const undecided = count((row) => row.verdict.kind === 'undecided');
  const stale = count((row) => row.verdict.kind === 'stale');
  const errors = count((row) => row.verdict.kind === 'error');
  return `${String(rows.length)} mutants: ${String(killed)} killed, ${String(survived)} survived, ${String(gaps)} known gaps, ${String(equivalent)} equivalent, ${String(undecided)} undecided, ${String(stale)} stale, ${String(errors)} errors`;
}

export interface Selection {
  readonly only?: readonly string[];
  readonly seed: number;
  /** Set for the CI subset: the catalog in a seeded order, run until the time is up. */
  readonly budgetMinutes?: number;
}

/**
 * The mutants a run takes, in order: the named ones (--only), or the whole catalog; under a
 * budget, the catalog shuffled by the seed so that successive CI runs cover different parts.
 */
export function selectMutants(catalog: readonly Mutant[], selection: Selection): Mutant[] {
  if (selection.only !== undefined && selection.only.length > 0) {
    const unknown = selection.only.filter((id) => !catalog.some((mutant) => mutant.name === id));
    if (unknown.length > 0) throw new Error(`no mutant named ${unknown.join(', ')}`);
    return catalog.filter((mutant) => selection.only?.includes(mutant.name));
  }
  if (selection.budgetMinutes === undefined) return [...catalog];
  return new SeededRandom(selection.seed).shuffle(catalog);
}

/**
 * Whether the next mutant still fits the budget: the time spent plus the longest mutant so far
 * (a first guess before any ran) stays within it.
 */
export function fitsBudget(
  spentSeconds: number,
  longestSeconds: number,
  budgetMinutes: number | undefined,
): boolean {
  if (budgetMinutes === undefined) return true;
  const estimate = Math.max(longestSeconds, FIRST_GUESS_SECONDS);
  return spentSeconds + estimate <= budgetMinutes * 60;
}

/** A focused run with its copy: 4-10 s alone, more on a loaded machine. */
export const FIRST_GUESS_SECONDS = 15;
