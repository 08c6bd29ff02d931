/**
 * Input answers judged by the task-lifecycle model (suites/model/tasks.ts): random answers to the
 * pending, an earlier or an unknown request, valid or not, at revisions below, at and above the
 * current one, and replays, before and after the task completes. The driver is
 * ../support/model-driver/revision-checks.ts.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkInputRevisions } from '../support/model-driver/revision-checks.ts';

export const modelCases: readonly CaseDeclaration<'interactive-input'>[] = [
  {
    id: 'interactive-input.model-revisions',
    requirements: [
      'interactive-input.identical-replay',
      'interactive-input.different-tuple-conflict',
      'interactive-input.late-answer-conflict',
      'interactive-input.stale-revision-conflict',
      'interactive-input.unknown-request-not-found',
      'interactive-input.schema-invalid-not-acceptable',
    ],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-33', 'interp-35', 'interp-36', 'interp-37'],
    statement:
      'Whatever order answers come in, each gets the answer the task model gives: acceptance only for valid input to the pending request at the current revision, conflict for stale or already answered requests, item-not-found for unknown ones, the original acceptance for an identical replay even after completion; the task completes with each accepted input exactly once.',
    run: (context) => checkInputRevisions(context, [1, 12]),
  },
];
