// Issue 14, item 5, Done when: the bad-input family fails against deliberately broken variants of
// the reference gateway (integration/variants/gateway-variants.ts), each run on a --grep subset
// (a subset can prove a failure, never a pass): one reflects the rejected JSON in its
// resource-constraint errors, one falls over (stops answering) on a generated input.
import { describe, expect, it } from 'vitest';
import { ECHO_IN_LIMIT_ERRORS, UNBOUNDED_SCHEMA_EVALUATION } from './variants/gateway-variants.ts';
import { caseOf, describeRun, verdictOf, violated } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

describe('a gateway reflecting the rejected JSON in resource-constraint errors', () => {
  const run = useVariantRun(ECHO_IN_LIMIT_ERRORS, { grep: ['json-encoding.generated-bad'] });

  it('FAILS the generated arguments and input cases on json-encoding.no-reflection (every run samples a limit probe)', () => {
    for (const id of ['json-encoding.generated-bad-arguments', 'json-encoding.generated-bad-input']) {
      expect(caseOf(run(), id).outcome, `${id}\n${describeRun(run())}`).toBe('failed');
      expect(violated(run(), id), id).toContain('json-encoding.no-reflection');
    }
    expect(verdictOf(run(), 'task-execution').verdict).toBe('failed');
    expect(verdictOf(run(), 'interactive-tasks').verdict).toBe('failed');
  });
});

describe('a gateway evaluating tool schemas without a time budget', () => {
  const run = useVariantRun(UNBOUNDED_SCHEMA_EVALUATION, { grep: ['json-encoding.catastrophic-pattern'] });

  it('FAILS the catastrophic-pattern case: no answer within the reply timeout (rules.resource-bounds)', () => {
    const id = 'json-encoding.catastrophic-pattern';
    expect(caseOf(run(), id).outcome, describeRun(run())).toBe('failed');
    expect(violated(run(), id)[0]).toBe('rules.resource-bounds');
    expect(verdictOf(run(), 'task-execution').verdict).toBe('failed');
  });
});
