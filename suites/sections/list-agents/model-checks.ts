/**
 * The directory judged by the spec model (suites/model/directory.ts): random principals page the
 * directory with random RSM windows (after or before a visible, hidden or nonexistent JID, by
 * index, max 0, no set), and every page must be one the model accepts for the world the run
 * provisioned. The driver is ../support/model-driver.
 */
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkAgainstModel } from '../support/model-driver/driver.ts';

export const modelCases: readonly CaseDeclaration<'list-agents'>[] = [
  {
    id: 'list-agents.model-directory',
    // Provisions a random world as the administrator: what every other case reads changes.
    alongside: false,
    requirements: [
      'list-agents.rsm-paging',
      'list-agents.octet-order',
      'list-agents.count-visible-only',
      'list-agents.visibility-filter',
      'list-agents.node-optional',
    ],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-13', 'interp-14', 'interp-15', 'interp-23'],
    statement:
      'Whoever asks, and however the page is cut, every directory page holds only endpoints that principal may see, in octet order of their JIDs, with a count of exactly those; a hidden JID used as an RSM anchor behaves like one that names nothing.',
    run: (context) => checkAgainstModel(context, { family: 'directory', runs: [4, 60] }),
  },
];
