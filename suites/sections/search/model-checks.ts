/**
 * Search judged by the spec model (suites/model/search.ts): a random principal searches by a nick
 * drawn from the world's localparts, names and titles (and their case variants and fragments),
 * pages through every match, and the matched set must lie between what every reading of #search
 * finds and what some reading may find, among the endpoints that principal may see; then one
 * random RSM window of the same search must be a page of that set.
 */
import { NS } from '../../../protocol/namespaces.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkAgainstModel } from '../support/model-driver/driver.ts';

export const modelCases: readonly CaseDeclaration<'search'>[] = [
  {
    id: 'search.model-search',
    // Provisions a random world as the administrator: what every other case reads changes.
    alongside: false,
    requirements: [
      'search.legacy-nick',
      'search.visibility-filter',
      'search.hidden-not-revealed',
      'search.octet-order',
    ],
    profiles: ['jabber-search'],
    level: 'MUST',
    features: [NS.search],
    interpretations: ['interp-13', 'interp-14', 'interp-15', 'interp-18', 'interp-23'],
    statement:
      'A nick search from any principal finds no endpoint that principal may not see and no endpoint none of whose names contains the nick, misses none whose names all equal it, and pages its matches in octet order with their exact count.',
    run: (context) => checkAgainstModel(context, { family: 'search', runs: [3, 40], maxSteps: 2 }),
  },
];
