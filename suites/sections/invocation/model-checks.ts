/**
 * Invocation authorization judged by the spec model (suites/model/invocation.ts, access.ts):
 * random principals invoke random tools of visible, hidden, restricted and nonexistent endpoints.
 * Only requests the model says are refused at admission are sent (an authorized one carries a
 * hash no manifest has), so the answer tells whether authorization came first and which grant
 * applied, and no task is ever started.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkAgainstModel } from '../support/model-driver/driver.ts';

export const modelCases: readonly CaseDeclaration<'invocation'>[] = [
  {
    id: 'invocation.model-authorization',
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
];
