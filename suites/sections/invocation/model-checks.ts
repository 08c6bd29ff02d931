/**
 * Invocation authorization judged by the spec model (suites/model/invocation.ts, access.ts):
 * random principals invoke random tools of visible, hidden, restricted and nonexistent endpoints.
 * Only requests the model says are refused at admission are sent (an authorized one carries a
 * hash no manifest has), so the answer tells whether authorization came first and which grant
 * applied, and no task is ever started.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkAgainstModel } from '../support/model-driver/driver.ts';
import { checkCapacityPaths, checkDeadlines } from '../support/model-driver/limit-checks.ts';

export const modelCases: readonly CaseDeclaration<'invocation'>[] = [
  {
    id: 'invocation.model-authorization',
    // It changes, as the administrator, the directory the read-only cases read: never beside them.
    alongside: false,
    requirements: [
      'invocation.unauthorized-item-not-found',
      'invocation.authorize-first',
      'invocation.invoke-without-visibility',
      'security.federation-deny-default',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-23', 'interp-27'],
    statement:
      'Every grant reaches each tool it names and no other: an invocation by a principal without a grant for that tool is refused as if the endpoint did not exist, one with a grant gets past authorization to the manifest-hash check, whether or not the principal may see the endpoint.',
    run: (context) => checkAgainstModel(context, { family: 'invocation', runs: [4, 60] }),
  },
  {
    id: 'invocation.model-capacity',
    // security.rate-limits: it paces to the documented invocation bucket and judges a
    // resource-constraint against it, so a refusal is never taken for a rate limit unjudged.
    requirements: ['rules.resource-bounds', 'security.rate-limits'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-42'],
    statement:
      'A caller at its documented task capacity is refused one more invocation while a task of it is non-terminal (cancelling included) and admitted once that task has completed, failed, been cancelled, passed its deadline or let its input request expire: capacity is released by every terminal path, never before.',
    run: (context) => checkCapacityPaths(context, [1, 4]),
  },
  {
    id: 'invocation.model-deadlines',
    requirements: [
      'rules.resource-bounds',
      'cancellation.deadline-at-commit',
      'task-recovery.state-contents',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-30', 'interp-32'],
    statement:
      "Deadlines placed on the gateway's measured clock get the answers the model allows: long expired refused (or admitted and failed at once, warned), within the clock window either, below and at the tool maximum admitted, above it clamped or refused — and an admitted task's state shows its deadline, one requested above the maximum no later than the maximum.",
    run: checkDeadlines,
  },
];
