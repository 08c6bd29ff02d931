/**
 * Administrative Provisioning judged by the spec model (suites/model/provisioning.ts): random
 * principals send registration-status and the changing IQs to the endpoints the case provisioned,
 * to the fixture world's, and to targets the other cases never name — JIDs on domains the gateway
 * does not host, the requester's own bare JID, a JID with a resource, a well-formed JID of the
 * gateway's domain that names nothing — and the administrator registers manifests claiming JIDs
 * of every other domain and account of the run. Only requests whose permitted outcomes all leave the world
 * as it is are sent, so every status answer can be held against the model's list of versions.
 */
import { FEATURE } from '../../../protocol/namespaces.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import { checkAgainstModel } from '../support/model-driver/driver.ts';

export const modelCases: readonly CaseDeclaration<'registration-flow'>[] = [
  {
    id: 'registration-flow.model-provisioning',
    requirements: [
      'registration-flow.admin-operations',
      'security.admin-authentication',
      'registration-flow.federation-grants-nothing',
      'security.no-sender-spoofing',
    ],
    profiles: ['admin-provisioning'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-11', 'interp-24', 'interp-25'],
    statement:
      'Only the administrator provisions, whoever asks and whatever the target; the administrator is refused for targets the gateway does not host or that do not exist, including a manifest claiming another domain’s JID or another account’s, and registration-status lists exactly the registered versions with the active one marked and their hashes.',
    run: (context) => checkAgainstModel(context, { family: 'provisioning', runs: [4, 40] }),
  },
];
