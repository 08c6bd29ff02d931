// A caller-only run's result and exit code: no profile claimed, the assessments decide. Exit 0
// only when every assessment run passed; a failed or undecided one exits 1.
import { describe, expect, it } from 'vitest';

import type { CallerRunResult } from '../../runner/run-callers.ts';
import type { CallerSutConfig } from '../../harness/sut/sut-config.ts';
import { DEFAULT_TIMEOUTS } from '../../harness/sut/sut-config.ts';
import type { AssessmentVerdict } from '../../runner/assessment-verdicts.ts';
import { EXIT } from '../io.ts';
import { callerRunExit, runResultOf } from './caller-run.ts';
import type { RunValues } from './checked-inputs.ts';

const CONFIG: CallerSutConfig = {
  source: 'bridge.json',
  name: 'a bridge',
  caller: { kind: 'mcp', command: ['bridge', '{config}'], cwd: '.', env: {} },
  timeouts: DEFAULT_TIMEOUTS,
};

function callers(verdict: AssessmentVerdict['verdict']): CallerRunResult {
  const zero = { passed: 0, failed: 0, cantTell: 0, inapplicable: 0, untested: 0 };
  return {
    cases: [],
    partial: false,
    assessments: [
      {
        assessment: 'caller-side',
        title: 'Caller side',
        notASpecProfile: true,
        verdict,
        counts: { MUST: zero, SHOULD: zero, MAY: zero },
        failingCases: [],
        undecidedCases: [],
      },
    ],
  };
}

function resultWith(verdict: AssessmentVerdict['verdict']) {
  return runResultOf(CONFIG, { strict: false, grep: [] } as unknown as RunValues, {
    runId: 'run',
    startedAt: '2026-01-01T00:00:00.000Z',
    started: performance.now(),
    setupMs: 0,
    seed: 7,
    provider: 'native',
    servers: { a: 'prosody', b: 'prosody' },
    callers: callers(verdict),
  });
}

describe('a caller-only run', () => {
  it('claims no profile and exits 0 when every assessment run passed', () => {
    const result = resultWith('passed');
    expect(result.profiles.every((profile) => !profile.claimed)).toBe(true);
    expect(result.subject.profiles).toEqual([]);
    expect(result.passed).toBe(true);
    expect(callerRunExit(result)).toBe(EXIT.ok);
  });

  it('exits 1 when an assessment failed or could not be decided', () => {
    expect(callerRunExit(resultWith('failed'))).toBe(EXIT.invalid);
    expect(callerRunExit(resultWith('incomplete'))).toBe(EXIT.invalid);
    expect(callerRunExit(resultWith('not-assessed'))).toBe(EXIT.invalid);
  });
});
