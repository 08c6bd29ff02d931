// Task capacity under concurrency (#rules: bounded task count; admission.ts): the store is
// counted once per group transaction and each admission of the group adds itself, so a burst
// never exceeds the limit; counts from an earlier group never refuse once tasks have settled.
import { describe, expect, it } from 'vitest';
import { FAULT } from '../iq/faults.ts';
import type { Outcome } from '../iq/outcome.ts';
import { ALICE, BOB, WEATHER, invokeRequest } from './test-support/engine-kit.ts';
import { useEngineKit } from './test-support/use-engine-kit.ts';

const kit = useEngineKit({ limits: { maxActiveTasksPerCaller: 3, maxActiveTasks: 5 } });

const plain = () => invokeRequest(kit.store, { tool: 'plain', argumentsJson: '{}' });
const conditions = (outcomes: readonly Outcome[]) =>
  outcomes.map((outcome) => (outcome.ok ? 'accepted' : outcome.fault.condition)).sort();

describe('task capacity (#rules, #invocation)', () => {
  it('admits exactly the per-caller limit out of a concurrent burst', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => kit.engine.invoke(BOB, WEATHER, plain())),
    );
    expect(conditions(outcomes)).toEqual([
      'accepted',
      'accepted',
      'accepted',
      ...Array.from({ length: 5 }, () => FAULT.resourceConstraint.condition),
    ]);
    expect(kit.store.tasks.countNonTerminalOf(BOB.bareJid)).toBe(3);
  });

  it('keeps the global limit across callers in one burst', async () => {
    const outcomes = await Promise.all([
      ...Array.from({ length: 3 }, () => kit.engine.invoke(BOB, WEATHER, plain())),
      ...Array.from({ length: 3 }, () => kit.engine.invoke(ALICE, WEATHER, invokeRequest(kit.store))),
    ]);
    expect(conditions(outcomes).filter((condition) => condition === 'accepted')).toHaveLength(5);
    expect(kit.store.tasks.countNonTerminal()).toBe(5);
  });

  it('admits again as soon as a task settles, whatever the last group counted', async () => {
    for (let i = 0; i < 3; i++) expect((await kit.engine.invoke(BOB, WEATHER, plain())).ok).toBe(true);
    expect((await kit.engine.invoke(BOB, WEATHER, plain())).ok).toBe(false);
    const run = await kit.runtime.execution(0);
    await run.actions.complete({ content: [] });
    expect((await kit.engine.invoke(BOB, WEATHER, plain())).ok).toBe(true);
    expect((await kit.engine.invoke(BOB, WEATHER, plain())).ok).toBe(false);
  });
});
