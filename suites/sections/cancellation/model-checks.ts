/**
 * Cancellation judged by the task-lifecycle model (suites/model/tasks.ts): random sequences of
 * cancellations at expected revisions below (by a transition or only by progress), at and above
 * the current one, identical replays and other tuples, before and after the task settles. The
 * driver is ../support/model-driver/revision-checks.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkCancellationRevisions } from '../support/model-driver/revision-checks.ts';

export const modelCases: readonly CaseDeclaration<'cancellation'>[] = [
  {
    id: 'cancellation.model-revisions',
    requirements: [
      'cancellation.stale-revision-conflict',
      'cancellation.identical-replay',
      'cancellation.different-tuple-conflict',
      'cancellation.settled-first-conflict',
    ],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-33', 'interp-36', 'interp-38', 'interp-39'],
    statement:
      'Whatever order cancellations come in, each gets the answer the task model gives for the task as it stands: acceptance only at the current revision (or after mere progress), conflict below a transition, conflict or bad-request above; the accepted tuple replayed gets the original acceptance, before and after settlement, and any other tuple a conflict.',
    run: (context) => checkCancellationRevisions(context, [1, 12]),
  },
];
