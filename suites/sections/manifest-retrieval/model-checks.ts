/**
 * Manifest and schema retrieval judged by the spec model (suites/model/metadata.ts): random
 * principals ask for the active or an exact version's manifest, and for input and output schemas
 * with current, stale and foreign manifest hashes, of visible, hidden, invoke-only and
 * nonexistent endpoints.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkAgainstModel } from '../support/model-driver/driver.ts';

export const modelCases: readonly CaseDeclaration<'manifest-retrieval'>[] = [
  {
    id: 'manifest-retrieval.model-metadata',
    // Provisions a random world as the administrator: what every other case reads changes.
    alongside: false,
    requirements: [
      'manifest-retrieval.result-contents',
      'manifest-retrieval.same-access-as-discovery',
      'manifest-retrieval.invoke-permission-insufficient',
      'schemas.canonical-bytes',
      'schemas.stale-hash-conflict',
    ],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-23', 'interp-27'],
    statement:
      'Manifests and schemas go to exactly the principals that may discover the endpoint, as the exact canonical bytes of the version named; a schema request with another version’s hash is a conflict, and a permission to invoke alone retrieves nothing.',
    run: (context) => checkAgainstModel(context, { family: 'metadata', runs: [4, 60] }),
  },
];
