/**
 * The test every permitted variant gets: it passes every claimed profile on a full run (no
 * --grep, no --profile: a subset never proves a pass).
 */
import { expect, it } from 'vitest';
import { describeRun, unpassedClaims, type AgentconfRun } from './run-agentconf.ts';

function expectPassesEveryClaim(run: AgentconfRun): void {
  expect(run.result.partial).toBe(false);
  expect(unpassedClaims(run), describeRun(run)).toEqual([]);
  // Every profile of the spec, Human Messaging included.
  expect(run.result.profiles.filter((entry) => entry.claimed).length).toBe(8);
  expect(run.result.passed).toBe(true);
  expect(run.code).toBe(0);
}

/** The variant passes today. */
export function itPassesEveryClaimedProfile(run: () => AgentconfRun): void {
  it('passes every claimed profile', () => {
    expectPassesEveryClaim(run());
  });
}
