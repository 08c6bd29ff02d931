/**
 * Tool collections and tool nodes judged by the spec model (suites/model/endpoint-discovery.ts):
 * random principals list the collection of any registered or unknown version, page it, and ask
 * disco#info of collection and tool nodes, including tools and versions the endpoint does not have.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkAgainstModel } from '../support/model-driver/driver.ts';

export const modelCases: readonly CaseDeclaration<'list-tools'>[] = [
  {
    id: 'list-tools.model-tools',
    // Provisions a random world as the administrator: what every other case reads changes.
    alongside: false,
    requirements: [
      'list-tools.rsm-paging',
      'tool-info.disco-info',
      'rules.uniform-visibility',
      'list-tools.name-byte-order',
      'list-tools.collection-node-info',
    ],
    profiles: ['tool-discovery'],
    level: 'MUST',
    interpretations: ['interp-08', 'interp-13', 'interp-14', 'interp-19', 'interp-22', 'interp-23'],
    statement:
      'A principal that may see an endpoint gets every tool of the version it names, in tool-name byte order and with the schema hashes of the manifest; one that may not, or names a version or tool that does not exist, gets the refusal a nonexistent endpoint gets.',
    run: (context) => checkAgainstModel(context, { family: 'tool-discovery', runs: [4, 60] }),
  },
];
