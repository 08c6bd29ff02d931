/**
 * security.admin-authentication for the principals and targets the main case leaves out:
 * administrative authority belongs to the administrator's bare JID, so every resource of that
 * account may provision (and the administrator itself must, or no refusal proves anything); and
 * whether a self-registrant may administer the endpoint at its own JID is left open (the
 * catalog's registrant-administers-own-endpoint is equivalent for that reason), so its requests
 * there are judged on consistency: a refusal changes nothing, a result does what it says.
 */
import { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import type { IqExchange } from '../../../harness/driver/index.ts';
import { normalizeBareJid } from '../../../protocol/jid/index.ts';
import { FEATURE, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { parseRegistered, type RegistrationVersion } from '../../../protocol/stanza/index.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectParsedResult,
  expectResultPayload,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { NotApplicable } from '../../framework/verdicts.ts';
import { minimalManifest } from '../support/manifests.ts';
import {
  adminFor,
  describeVersions,
  freshEndpoint,
  freshVersion,
  hasSelfRegistration,
  registeredVersions,
  withRestore,
} from '../support/provisioning.ts';

/** An administrative reply that must be the operation's result element. */
function expectDone(exchange: IqExchange, element: string): void {
  expectResultPayload(exchange, 'security.admin-authentication', NS_AGENT_API, element);
}

export const adminPrincipalCases: readonly CaseDeclaration<'security'>[] = [
  {
    id: 'security.admin-authority-by-bare-jid',
    requirements: ['security.admin-authentication'],
    profiles: ['admin-provisioning'],
    level: 'MUST',
    features: [FEATURE.admin],
    statement:
      'The administrator registers a fresh endpoint (the positive control), and another resource of the administrator’s account then registers a second version, reads the registration status, activates, deactivates, removes a version and removes the endpoint, each answered with its result: authority is the bare JID’s, not one session’s.',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const admin = await adminFor(context);
        const other = new ProvisioningClient(
          await context.callers.sibling(await context.callers.admin()),
          context.sut.gatewayJid,
        );
        const { jid } = freshEndpoint(context, 'admin-resource');
        const [first, second] = [freshVersion(context), freshVersion(context, '2.0.0')];
        const registered = expectParsedResult(
          await restorer.register(admin, jid, JSON.stringify(minimalManifest(jid, first))),
          'security.admin-authentication',
          NS_AGENT_API,
          'registered',
          parseRegistered,
        );
        expectDone(
          await restorer.register(other, jid, JSON.stringify(minimalManifest(jid, second))),
          'registered',
        );
        expectDone(await other.status(jid), 'registration');
        expectDone(await other.activate(jid, first, registered.hash), 'active');
        expectDone(await other.deactivate(jid), 'deactivated');
        expectDone(await other.removeVersion(jid, second), 'removed');
        expectDone(await other.removeEndpoint(jid), 'removed');
      }),
  },
  {
    id: 'security.registrant-own-endpoint-consistent',
    requirements: ['security.admin-authentication', 'registration-flow.admin-operations'],
    profiles: ['admin-provisioning'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-24'],
    statement:
      'The self-registrant registers its own bare JID, then asks for its registration status, activates, deactivates, removes the version and removes the endpoint. Whether a self-registrant may administer its own endpoint is left open (#use-case-registration), so each may be refused (forbidden or item-not-found) or performed; either way the administrator then sees exactly the effect of the ones performed and none of the refused.',
    run: async (context: CaseContext) =>
      withRestore(context, async (restorer) => {
        if (!hasSelfRegistration(context)) {
          throw new NotApplicable(
            'the SUT offers no Self Registration, so no registrant has an endpoint of its own to administer',
          );
        }
        const admin = await adminFor(context);
        const caller = await context.callers.registrant();
        const registrant = new ProvisioningClient(caller, context.sut.gatewayJid);
        const own = normalizeBareJid(caller.bareJid);
        const version = freshVersion(context);
        const registered = await restorer.register(
          registrant,
          own,
          JSON.stringify(minimalManifest(own, version)),
        );
        requirePositiveControl(registered, `${own} registering its own bare JID`);
        const { hash } = expectParsedResult(
          registered,
          'security.admin-authentication',
          NS_AGENT_API,
          'registered',
          parseRegistered,
        );
        const seen = async (): Promise<readonly RegistrationVersion[]> =>
          registeredVersions(context, admin, own, 'security.admin-authentication');
        const held = (versions: readonly RegistrationVersion[]): RegistrationVersion | undefined =>
          versions.find((candidate) => candidate.id === version);
        const performed = (exchange: IqExchange, element: string): boolean => {
          if (exchange.parsed.type === 'result') {
            expectResultPayload(exchange, 'security.admin-authentication', NS_AGENT_API, element);
            return true;
          }
          expectStanzaError(
            exchange,
            'security.admin-authentication',
            ['forbidden', 'item-not-found'],
            context,
          );
          return false;
        };
        const expectSeen = (versions: readonly RegistrationVersion[], want: string, holds: boolean): void => {
          expectThat(describeVersions(versions), 'security.admin-authentication', want, holds);
        };

        performed(await registrant.status(own), 'registration');
        const activated = performed(await registrant.activate(own, version, hash), 'active');
        let versions = await seen();
        expectSeen(
          versions,
          `${version} ${activated ? 'active (activated)' : 'inactive (activation refused)'}`,
          held(versions)?.active === activated,
        );
        const deactivated = performed(await registrant.deactivate(own), 'deactivated');
        const active = activated && !deactivated;
        versions = await seen();
        expectSeen(
          versions,
          `${version} ${active ? 'active' : 'inactive'}`,
          held(versions)?.active === active,
        );
        // An active version is not removable: conflict or not-allowed then (interp-24), whoever asks.
        const removal = await registrant.removeVersion(own, version);
        const refusedAsActive =
          active &&
          removal.parsed.type === 'error' &&
          ['conflict', 'not-allowed'].includes(removal.parsed.error.condition);
        const removed = !refusedAsActive && performed(removal, 'removed');
        versions = await seen();
        expectSeen(
          versions,
          `${version} ${removed ? 'removed' : 'still registered'}`,
          (held(versions) === undefined) === removed,
        );
        const endpointRemoved =
          !removed && !active && performed(await registrant.removeEndpoint(own), 'removed');
        if (removed || endpointRemoved) {
          versions = await seen();
          expectSeen(versions, `${own} holding no version`, held(versions) === undefined);
          return;
        }
        versions = await seen();
        expectSeen(versions, `${own} still holding ${version}`, held(versions) !== undefined);
      }),
  },
];
