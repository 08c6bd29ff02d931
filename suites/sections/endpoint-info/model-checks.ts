/**
 * Endpoint disco#info and node-less disco#items judged by the spec model
 * (suites/model/endpoint-discovery.ts): random principals ask about visible, hidden, deactivated
 * and nonexistent endpoints, and on the feature var as a node; a refusal about a hidden endpoint
 * is compared byte for byte with the refusal about one that does not exist.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkAgainstModel } from '../support/model-driver/driver.ts';

export const modelCases: readonly CaseDeclaration<'endpoint-info'>[] = [
  {
    id: 'endpoint-info.model-endpoint-info',
    // Provisions a random world as the administrator: what every other case reads changes.
    alongside: false,
    requirements: [
      'endpoint-info.disco-info',
      'rules.uniform-visibility',
      'errors.not-found-equivalence',
      'endpoint-info.feature-var-not-node',
    ],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-16', 'interp-19', 'interp-20', 'interp-23'],
    statement:
      'An endpoint tells its active version and manifest hash to exactly the principals that may see it; to everyone else it answers like a JID that hosts nothing, down to the bytes of the error.',
    run: (context) => checkAgainstModel(context, { family: 'endpoint-info', runs: [4, 60] }),
  },
];
