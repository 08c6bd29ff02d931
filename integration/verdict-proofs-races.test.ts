// Issue 14, item 1, Done when: the race family passes against the reference gateway and fails
// against a deliberately broken variant of it (harness/sut/source-variant.ts) — a duplicate
// in-flight invocation that runs the tool again, and a late cancellation overwriting a terminal
// state — each run on the race cases only (--grep: a subset can prove a failure, never a pass).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { DOUBLE_EXECUTION, LATE_CANCEL_OVERWRITES } from './variants/gateway-variants.ts';
import { caseOf, describeRun, verdictOf } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

const RACES = ['cancellation.race-', 'interactive-input.race-', 'idempotency.race-', 'task-states.race-'];
const RACE_CASES = [
  'cancellation.race-cancel-vs-completion',
  'cancellation.race-deadline-vs-completion',
  'interactive-input.race-input-vs-expiry',
  'interactive-input.race-input-vs-cancel',
  'idempotency.race-duplicate-invokes',
  'task-states.race-state-queries',
];

describe('the reference gateway', () => {
  const run = useVariantRun(
    { name: 'reference', sutFile: join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json') },
    { grep: RACES },
  );

  it('passes every race case', () => {
    for (const id of RACE_CASES)
      expect(caseOf(run(), id).outcome, `${id}\n${describeRun(run())}`).toBe('passed');
  });
});

describe('a duplicate in-flight invocation that runs the tool again', () => {
  const run = useVariantRun(DOUBLE_EXECUTION, { grep: ['idempotency.race-'] });

  it('FAILS idempotency.race-duplicate-invokes on the ledger, and Task Execution', () => {
    const result = caseOf(run(), 'idempotency.race-duplicate-invokes');
    expect(result.outcome, describeRun(run())).toBe('failed');
    expect(result.attempts.at(-1)?.violation?.requirement).toBe('invocation.replay-same-task');
    expect(result.reason).toMatch(/ledger counted 2 executions/);
    expect(verdictOf(run(), 'task-execution').verdict).toBe('failed');
  });
});

describe('a late cancellation overwriting the terminal state', () => {
  const run = useVariantRun(LATE_CANCEL_OVERWRITES, {
    grep: ['cancellation.race-', 'interactive-input.race-input-vs-cancel'],
  });

  it('FAILS the cancellation races on the immutable terminal state, and their profiles', () => {
    // Three races can catch it: a cancel reaching the task after a completion, a deadline expiry
    // or an accepted answer won. Each case fails only if the re-run of a failed attempt fails too.
    const failed = run().result.cases.filter((result) => result.outcome === 'failed');
    expect(failed.length, describeRun(run())).toBeGreaterThan(0);
    for (const result of failed) {
      expect(result.reason, result.case.id).toMatch(
        /after the terminal (completed|failed)|after the task settled/,
      );
      for (const profile of result.case.profiles) expect(verdictOf(run(), profile).verdict).toBe('failed');
    }
  });
});
