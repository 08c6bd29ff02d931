// Issue 14, items 3 and 4, Done when: the crash and link-fault families fail against deliberately
// broken variants of the reference gateway (integration/variants/gateway-variants.ts), each run
// on a --grep subset (a subset can prove a failure, never a pass).
//
// accepted-before-commit answers an admission and commits it in the next event-loop turn: only a
// kill between the two shows it, which is why its run is --deep (40 kill points; the case stops at
// the first violation). resent-event-new-id gives events it sends again a fresh event ID: the
// component-link cut makes it re-send the events committed while it was offline, and the bounce
// of the terminal event makes it re-send that one once more, under another ID.
import { describe, expect, it } from 'vitest';
import { ACCEPTED_BEFORE_COMMIT, RESENT_EVENT_NEW_ID } from './variants/gateway-variants.ts';
import { caseOf, describeRun, verdictOf } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

describe('<accepted/> written before the admission commits', () => {
  const run = useVariantRun(ACCEPTED_BEFORE_COMMIT, { grep: ['invocation.crash-on-the-wire'], deep: true });

  it('FAILS invocation.crash-on-the-wire on invocation.durable-before-accepted', () => {
    const result = caseOf(run(), 'invocation.crash-on-the-wire');
    expect(result.outcome, describeRun(run())).toBe('failed');
    const violated = result.attempts.map((attempt) => attempt.violation?.requirement);
    expect(violated, describeRun(run())).toContain('invocation.durable-before-accepted');
    expect(verdictOf(run(), 'task-execution').verdict).toBe('failed');
  });
});

describe('events sent again under a fresh event ID', () => {
  const run = useVariantRun(RESENT_EVENT_NEW_ID, { grep: ['events.component-link-cut'] });

  it('FAILS events.component-link-cut on events.replay-identical', () => {
    const result = caseOf(run(), 'events.component-link-cut');
    expect(result.outcome, describeRun(run())).toBe('failed');
    const violated = result.attempts.map((attempt) => attempt.violation?.requirement);
    expect(violated, describeRun(run())).toContain('events.replay-identical');
    expect(verdictOf(run(), 'task-execution').verdict).toBe('failed');
  });
});
