// The run's headline (runner/terminal-report.ts runVerdictLine) speaks the profile table's words:
// INCOMPLETE and NOT ASSESSED are not called FAILED, and a stopped run keeps case IDs as written.
import { describe, expect, it } from 'vitest';

import { runVerdictLine, summaryTable } from '../runner/terminal-report.ts';
import type { ProfileVerdict } from '../runner/profile-verdicts.ts';
import type { RunResult } from '../runner/run-result.ts';
import { syntheticRunResult } from '../runner/reports/test-support/synthetic-run.ts';

/** The all-passing synthetic run with one claimed profile's verdict replaced. */
function withVerdict(profile: string, verdict: ProfileVerdict['verdict']): RunResult {
  const run = syntheticRunResult({ allPass: true });
  return {
    ...run,
    passed: false,
    profiles: run.profiles.map((p) => (p.profile === profile ? { ...p, verdict } : p)),
  };
}

describe('the run headline', () => {
  it('says PASS when every claimed profile passed', () => {
    const run = syntheticRunResult({ allPass: true });
    expect(run.passed).toBe(true);
    expect(runVerdictLine(run)).toBe('PASS: every claimed profile');
    expect(summaryTable(run)).toMatch(/\nExample Gateway <beta> & co: PASS: every claimed profile\n$/);
  });

  it('names an INCOMPLETE or NOT ASSESSED profile with that word, never FAIL', () => {
    expect(runVerdictLine(withVerdict('core-directory', 'incomplete'))).toBe('INCOMPLETE: Core Directory');
    expect(runVerdictLine(withVerdict('jabber-search', 'not-assessed'))).toBe(
      'NOT ASSESSED: Jabber Search Compatibility',
    );
  });

  it('lists each word with its profiles, FAIL first, as the table has them', () => {
    const run = syntheticRunResult({ gaps: true });
    const line = runVerdictLine(run);
    expect(line).toMatch(/^FAIL: [^;]+; INCOMPLETE: [^;]+(; NOT ASSESSED: .+)?$/);
    for (const verdict of run.profiles.filter((p) => p.claimed && p.verdict !== 'passed'))
      expect(line).toContain(verdict.title);
  });

  it('keeps the selection of a partial run, and a stale baseline is a FAIL of its own', () => {
    const partial = { ...withVerdict('core-directory', 'incomplete'), partial: true };
    expect(runVerdictLine(partial)).toMatch(
      /^INCOMPLETE: Core Directory \(PARTIAL: \d+ of \d+ cases selected\)$/,
    );
    const stale = { ...syntheticRunResult({ allPass: true }), passed: false, staleBaseline: ['x.y'] };
    expect(runVerdictLine(stale)).toBe('FAIL: the baseline is not current');
  });

  it('says where a stopped run stopped, the case ID as written', () => {
    const run = {
      ...syntheticRunResult(),
      interrupted: 'stopped at the 15 min time limit (in case list-agents.octet-order)',
    };
    expect(runVerdictLine(run)).toBe(
      'STOPPED AT THE 15 MIN TIME LIMIT (in case list-agents.octet-order): not a conformance verdict',
    );
    expect(runVerdictLine({ ...run, interrupted: 'interrupted by SIGINT' })).toBe(
      'INTERRUPTED BY SIGINT: not a conformance verdict',
    );
  });
});
