/**
 * Which cases may run beside others under `agentconf run --jobs N`, and why the rest run alone on
 * a quiet gateway. A case runs alongside others only when it says it may (ConformanceCase
 * .alongside) and nothing else it declares says otherwise: a verdict is a claim about someone
 * else's gateway, and a case nobody said was safe beside others could pass or fail because of
 * what another case did at the same moment. The reasons are derived from what cases already
 * declare (scenario, needs, profiles, features), so a new case of a kind that must be alone is
 * alone without anyone remembering to say so.
 */
import { FEATURE } from '../protocol/namespaces.ts';
import type { ConformanceCase } from '../suites/framework/case.ts';
import type { Scenario } from '../suites/framework/budget.ts';
import { startsTasks } from './task-leftovers.ts';

/** Families judged on timing, races, or faults injected where every case's traffic passes. */
const ALONE_SCENARIOS: ReadonlyMap<Scenario, string> = new Map([
  ['timing', 'it judges response times, which other cases’ traffic would skew'],
  ['race', 'it judges a race, whose schedule other cases’ traffic would change'],
  ['crash', 'it crashes or restarts the gateway every case talks to'],
  ['link-fault', 'it cuts, delays or freezes links every case’s traffic passes'],
]);

/**
 * Why the case must run alone, or undefined when it may run alongside others. The first reason
 * found is given; each alone is enough.
 */
export function whyAlone(testCase: ConformanceCase): string | undefined {
  const scenario = testCase.scenario === undefined ? undefined : ALONE_SCENARIOS.get(testCase.scenario);
  if (scenario !== undefined) return `${testCase.scenario} case: ${scenario}`;
  if ((testCase.needs ?? []).length > 0) {
    return `needs ${(testCase.needs ?? []).join(', ')}: faults inside the gateway every case talks to`;
  }
  if (startsTasks(testCase)) {
    // runner/task-leftovers.ts: a task case starts from a known state, which is every earlier
    // case's tasks settled; and task capacity is per account, which all cases share.
    return 'a task case: it starts only once every earlier case’s tasks are settled';
  }
  if (
    testCase.profiles.some((profile) => profile === 'self-registration' || profile === 'admin-provisioning')
  ) {
    return 'a registration case: it changes the directory other cases read';
  }
  if ((testCase.features ?? []).includes(FEATURE.admin)) {
    return 'it provisions as the administrator, changing the directory other cases read';
  }
  if (testCase.profiles.includes('human-messaging')) {
    return 'a messaging case: blocks and conversations belong to the accounts every case uses';
  }
  if (testCase.alongside !== true) return 'it does not declare that it may run alongside others';
  return undefined;
}

/**
 * The roles a case running alongside others may not act as: what an administrator or a
 * registrant does changes the directory every other case reads, and the prober exists to
 * exhaust per-sender bounds. A case that asks for one was declared alongside by mistake; it
 * fails loudly (the case errors) rather than quietly changing another case's verdict.
 */
export const ROLES_ALONE = ['admin', 'registrant', 'prober'] as const;
