/**
 * rules.self-registration-own-jid for the claims the main case does not make: a JID on another
 * domain (the registrant's own localpart there, and a real federated account) is not the
 * registrant's, and its own JID written in other letter cases is (the same bare JID once
 * prepared, interp-25): registered under the prepared JID, or refused, but never a second
 * registration of one version beside the first.
 */
import { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import { normalizeBareJid } from '../../../protocol/jid/index.ts';
import { FEATURE, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { parseRegistered } from '../../../protocol/stanza/index.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import {
  expectParsedResult,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { minimalManifest } from '../support/manifests.ts';
import {
  adminFor,
  describeVersions,
  expectForeignClaimsRefused,
  freshVersion,
  hasAdmin,
  registeredVersions,
  withRestore,
} from '../support/provisioning.ts';

/** The bare JID with its letters' cases mixed: R E g I s … (preparation folds it back). */
function mixedCase(jid: string): string {
  return jid.replace(/[a-z]/g, (letter: string, offset: number) =>
    offset % 2 === 0 ? letter.toUpperCase() : letter,
  );
}

export const selfRegistrationClaimCases: readonly CaseDeclaration<'rules'>[] = [
  {
    id: 'rules.self-registration-other-domain',
    requirements: ['rules.self-registration-own-jid', 'registration-flow.federation-grants-nothing'],
    profiles: ['self-registration'],
    level: 'MUST',
    features: [FEATURE.selfRegister],
    interpretations: ['interp-07', 'interp-24'],
    statement:
      'A local C2S account that registers its own bare JID (the positive control) may not register its own localpart on the federated domain, nor a federated account’s bare JID: both refused, and nothing registered under them.',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const caller = await context.callers.registrant();
        const self = new ProvisioningClient(caller, context.sut.gatewayJid);
        const own = normalizeBareJid(caller.bareJid);
        requirePositiveControl(
          await restorer.register(self, own, JSON.stringify(minimalManifest(own, freshVersion(context)))),
          `${own} registering its own bare JID`,
        );
        const federated = normalizeBareJid((await context.callers.remote()).bareJid);
        const foreignDomain = federated.slice(federated.indexOf('@') + 1);
        const claims = [`${own.slice(0, own.indexOf('@'))}@${foreignDomain}`, federated];
        await expectForeignClaimsRefused(context, restorer, self, own, claims);
        if (!hasAdmin(context)) return;
        const admin = await adminFor(context);
        for (const jid of claims) {
          const versions = await registeredVersions(context, admin, jid, 'rules.self-registration-own-jid');
          expectThat(
            describeVersions(versions),
            'rules.self-registration-own-jid',
            `nothing registered under ${jid}`,
            versions.length === 0,
          );
        }
      }),
  },
  {
    id: 'rules.self-registration-own-jid-other-case',
    requirements: ['rules.self-registration-own-jid', 'registration-flow.version-immutable'],
    profiles: ['self-registration'],
    level: 'MUST',
    features: [FEATURE.selfRegister],
    interpretations: ['interp-25'],
    statement:
      'A local C2S account registers a manifest claiming its own bare JID written in mixed letter case: either refused (then the same version claiming the prepared JID registers, the positive control) or registered under the prepared JID, after which the same version claiming the JID in lower case (other canonical bytes) gets conflict.',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const caller = await context.callers.registrant();
        const self = new ProvisioningClient(caller, context.sut.gatewayJid);
        const own = normalizeBareJid(caller.bareJid);
        const written = mixedCase(own);
        const version = freshVersion(context);
        const first = await restorer.register(self, own, JSON.stringify(minimalManifest(written, version)));
        const lower = JSON.stringify(minimalManifest(own, version));
        if (first.parsed.type === 'error') {
          // interp-25 lets a gateway refuse the unprepared spelling.
          requirePositiveControl(await restorer.register(self, own, lower), `${own} registering ${version}`);
          return;
        }
        const registered = expectParsedResult(
          first,
          'rules.self-registration-own-jid',
          NS_AGENT_API,
          'registered',
          parseRegistered,
        );
        expectThat(
          first.reply.xml,
          'rules.self-registration-own-jid',
          `<registered/> for the prepared JID ${own} (the manifest said ${written})`,
          normalizeBareJid(registered.jid) === own,
        );
        // Same endpoint, same version, other bytes: the tuple is taken.
        expectStanzaError(
          await restorer.register(self, own, lower),
          'registration-flow.version-immutable',
          'conflict',
          context,
        );
      }),
  },
];
