/**
 * Which cases a run executes: --grep keeps cases whose ID or requirement IDs contain one of the
 * patterns; --profile keeps cases counting toward one of the named profiles. Case order is the
 * suites' order, so a run and its re-run are comparable line by line.
 */
import type { ProfileId } from '../protocol/profiles.ts';
import type { ConformanceCase, Suite } from '../suites/framework/case.ts';

export interface CaseSelection {
  readonly grep?: readonly string[];
  readonly profiles?: readonly ProfileId[];
}

export interface SelectedSuite {
  readonly suite: Suite;
  readonly cases: readonly ConformanceCase[];
}

function matchesGrep(testCase: ConformanceCase, patterns: readonly string[]): boolean {
  const names = [testCase.id, ...testCase.requirements];
  return patterns.some((pattern) => names.some((name) => name.includes(pattern)));
}

export function selectCases(suites: readonly Suite[], selection: CaseSelection): SelectedSuite[] {
  const { grep, profiles } = selection;
  return suites
    .map((suite) => ({
      suite,
      cases: suite.cases.filter(
        (testCase) =>
          (grep === undefined || grep.length === 0 || matchesGrep(testCase, grep)) &&
          (profiles === undefined ||
            profiles.length === 0 ||
            testCase.profiles.some((profile) => profiles.includes(profile))),
      ),
    }))
    .filter((selected) => selected.cases.length > 0);
}
