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

/** One reason a case may not run beside others, or undefined; `tasks` marks the task reason. */
interface AloneCheck {
  readonly tasks?: true;
  readonly why: (testCase: ConformanceCase) => string | undefined;
}

/** In the order their reasons are given: the first one found is the case's. */
const ALONE_CHECKS: readonly AloneCheck[] = [
  {
    why: (testCase) => {
      const scenario = testCase.scenario === undefined ? undefined : ALONE_SCENARIOS.get(testCase.scenario);
      return scenario === undefined ? undefined : `${testCase.scenario ?? ''} case: ${scenario}`;
    },
  },
  {
    why: (testCase) =>
      (testCase.needs ?? []).length > 0
        ? `needs ${(testCase.needs ?? []).join(', ')}: faults inside the gateway every case talks to`
        : undefined,
  },
  {
    // runner/task-leftovers.ts: a task case starts from a known state, which is every earlier
    // case's tasks settled; and task capacity is per account, which all cases share.
    tasks: true,
    why: (testCase) =>
      startsTasks(testCase)
        ? 'a task case: it starts only once every earlier case’s tasks are settled'
        : undefined,
  },
  {
    // A bucket is judged by when each request was sent and answered: another case's traffic
    // delays the answers until the bucket can no longer be told from the gateway's throughput.
    why: (testCase) =>
      testCase.requirements.includes('security.rate-limits')
        ? 'it judges a rate limit by when answers come, which other cases’ traffic would delay'
        : undefined,
  },
  {
    why: (testCase) =>
      testCase.profiles.some((profile) => profile === 'self-registration' || profile === 'admin-provisioning')
        ? 'a registration case: it changes the directory other cases read'
        : undefined,
  },
  {
    why: (testCase) =>
      (testCase.features ?? []).includes(FEATURE.admin)
        ? 'it provisions as the administrator, changing the directory other cases read'
        : undefined,
  },
  {
    why: (testCase) =>
      testCase.profiles.includes('human-messaging')
        ? 'a messaging case: blocks and conversations belong to the accounts every case uses'
        : undefined,
  },
];

/**
 * Why the case must run alone, or undefined when it may run alongside others. The first reason
 * found is given; each alone is enough.
 */
export function whyAlone(testCase: ConformanceCase): string | undefined {
  for (const check of ALONE_CHECKS) {
    const why = check.why(testCase);
    if (why !== undefined) return why;
  }
  if (testCase.alongside !== true) return 'it does not declare that it may run alongside others';
  return undefined;
}

/**
 * Who may run beside the case: `any` (it runs alongside others), `readers` (only cases that run
 * alongside others, never another case of its own kind), `none` (it runs on a quiet gateway).
 * A task case is kept from other task cases by the state and capacity they share, not from the
 * read-only cases: they start no task, act as no role that changes the directory, and use
 * resources of their own, so what they do cannot reach its tasks, nor its tasks their reads. Its
 * other reasons still keep it alone, and so does `alongside: false`.
 */
export type Company = 'any' | 'readers' | 'none';

export function companyOf(testCase: ConformanceCase): Company {
  if (whyAlone(testCase) === undefined) return 'any';
  const besidesTasks = ALONE_CHECKS.some(
    (check) => check.tasks !== true && check.why(testCase) !== undefined,
  );
  return startsTasks(testCase) && !besidesTasks && testCase.alongside !== false ? 'readers' : 'none';
}

/**
 * The roles a case running alongside others may not act as: what an administrator or a
 * registrant does changes the directory every other case reads, and the prober exists to
 * exhaust per-sender bounds. A case that asks for one was declared alongside by mistake; it
 * cannot tell, naming the suite defect, rather than quietly changing another case's verdict.
 */
export const ROLES_ALONE = ['admin', 'registrant', 'prober'] as const;

/**
 * The roles a case running beside read-only cases may not act as: an administrator's or a
 * registrant's acts change the directory those cases read. The prober it may use: no read-only
 * case does.
 */
export const ROLES_NOT_BESIDE_READERS = ['admin', 'registrant'] as const;
