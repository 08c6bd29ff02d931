/**
 * #registration-flow: Administrative Provisioning end to end (register, activate with its hash
 * checked, deactivate, registration-status, remove-version, remove-endpoint; the active pointer
 * moves only when asked, whatever a new version number looks like), immutable versions
 * (identical content is idempotent however it is formatted, other content conflicts, also
 * after removal: tombstones), validation before anything is stored (I-JSON first, invalid
 * agent JIDs), and federation granting no registration authority.
 *
 * Self-registration for the account's own bare JID is #rules (rules.self-registration-own-jid).
 * Every case works on fresh endpoints and versions and removes them at its end
 * (support/provisioning.ts), so the directory the other sections see does not change. The one
 * exception is removal-blocked-by-task: the fresh, inactive version of the conformance endpoint
 * that its task depends on cannot be removed for the task's retention period, which is the
 * point; it is never activated again, so no listing changes.
 */
import { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import { type JsonObject } from '../../../protocol/json/json-value.ts';
import { normalizeBareJid } from '../../../protocol/jid/index.ts';
import { FEATURE, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { defineSuite } from '../../framework/case.ts';
import {
  expectResultPayload,
  expectSameErrorPayload,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { RequirementViolation } from '../../framework/verdicts.ts';
import { callerFor } from '../support/discovery.ts';
import { badManifest, minimalManifest } from '../support/manifests.ts';
import {
  adminFor,
  describeVersions,
  expectRefused,
  freshEndpoint,
  freshVersion,
  hasAdmin,
  registeredVersions,
  registrationControl,
  withRestore,
  unauthorizedConditions,
} from '../support/provisioning.ts';
import { expectRefusals, type RefusalVector } from '../support/refusals.ts';
import { TaskSession } from '../support/task-session.ts';
import { activateTarget, conformanceTarget, registerTargetVersion } from '../support/task-target.ts';
import { adminLifecycle } from './admin-lifecycle.ts';
import { modelCases } from './model-checks.ts';
import {
  adminOrSelf,
  expectRegisteredAs,
  expectStatus,
  hashOf,
  manifestWithDescription,
  registerFresh,
} from './registration-checks.ts';

const IJSON_VECTORS: readonly RefusalVector[] = [
  {
    label: 'a duplicate member name',
    text: (jid, version) => badManifest('json.duplicate-member', jid, version),
  },
  {
    label: 'a lone surrogate escape',
    text: (jid, version) => badManifest('json.lone-surrogate', jid, version),
  },
  { label: 'the number 1e400', text: (jid, version) => badManifest('json.number-overflow', jid, version) },
  {
    label: 'a duplicate member name inside a tool schema',
    text: (jid, version) =>
      `{"manifestSpecVersion":"0","agent":{"jid":${JSON.stringify(jid)},"name":"agentconf-probe","version":${JSON.stringify(version)}},"tools":[{"name":"echo","inputSchema":{"type":"object","type":"object"}}]}`,
  },
];

function jidVector(label: string, claim: (jid: string) => string): RefusalVector {
  return {
    label,
    text: (jid, version) => JSON.stringify(minimalManifest(claim(jid), version)),
    // interp-11 and #errors ("invalid endpoint identifier"); a JID that names no hosted domain may
    // also be refused as not the registrant's to claim (interp-24).
    conditions: () => ['bad-request', 'not-acceptable', 'jid-malformed', 'not-allowed', 'forbidden'],
  };
}

const [RESOURCE_VECTOR, ...OTHER_JID_VECTORS] = [
  jidVector('an agent.jid with a resource', (jid) => `${jid}/runtime`),
  jidVector('an agent.jid with a space in its localpart', (jid) => `the ${jid}`),
  jidVector('an agent.jid with an empty domainpart', (jid) => `${jid.slice(0, jid.indexOf('@'))}@`),
  jidVector('an agent.jid with an empty domain label', (jid) => jid.replace('@', '@a..')),
] as const;

export const registrationFlowSuite = defineSuite('registration-flow', 'Registration Flow', [
  adminLifecycle,
  {
    id: 'registration-flow.version-immutable',
    requirements: ['registration-flow.version-immutable', 'namespaces.jid-comparison'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-25'],
    statement:
      'Registering the same (JID, version) again with the same content — even reformatted, members reordered — returns the same registration; other content under it is a conflict and changes nothing; a JID differing only in case is the same endpoint, never a second registration of the version.',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const registrant = await adminOrSelf(context, 'immutable');
        const { jid, provisioning } = registrant;
        const version = freshVersion(context);
        const manifest = manifestWithDescription(jid, version, 'Immutable content.');
        const hash = hashOf(manifest);
        expectRegisteredAs(
          await restorer.register(provisioning, jid, JSON.stringify(manifest)),
          'registration-flow.version-immutable',
          jid,
          version,
          hash,
        );
        const reordered = `{\n  "tools": ${JSON.stringify(manifest['tools'], null, 2)},\n\t"agent": ${JSON.stringify(manifest['agent'])} , "manifestSpecVersion":"0"}\n`;
        expectRegisteredAs(
          await restorer.register(provisioning, jid, reordered),
          'registration-flow.version-immutable',
          jid,
          version,
          hash,
        );
        const changed = manifestWithDescription(jid, version, 'Other content under the same version.');
        expectRefused(
          await restorer.register(provisioning, jid, JSON.stringify(changed)),
          'registration-flow.version-immutable',
          ['conflict'],
          `other content under ${jid} ${version}`,
          context,
        );

        // interp-25: rejected, a conflict, or the same registration under the prepared JID.
        const at = jid.indexOf('@');
        const shouting = `${jid.slice(0, at).toUpperCase()}${jid.slice(at)}`;
        const caseVariant = { ...manifest, agent: { ...(manifest['agent'] as JsonObject), jid: shouting } };
        const variant = await restorer.register(provisioning, jid, JSON.stringify(caseVariant));
        if (variant.parsed.type === 'result') {
          expectRegisteredAs(variant, 'namespaces.jid-comparison', jid, version, hash);
        }
        if (hasAdmin(context)) {
          await expectStatus(
            context,
            await adminFor(context),
            jid,
            [{ id: version, active: false, hash }],
            'registration-flow.version-immutable',
            'after the conflicting registrations',
          );
        }
      }),
  },
  {
    id: 'registration-flow.non-admin-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['errors.not-found-equivalence'],
    profiles: ['admin-provisioning'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-24'],
    statement:
      'A local account that is not the administrator asks registration-status of an endpoint the administrator just registered and of one nobody registered: both are refused (forbidden or item-not-found, interp-24) with the same error, so the refusal does not tell whether the endpoint exists.',
    run: (context) =>
      withRestore(context, async (restorer) => {
        const admin = await adminFor(context);
        const existing = freshEndpoint(context, 'exists').jid;
        requirePositiveControl(
          await restorer.register(
            admin,
            existing,
            JSON.stringify(minimalManifest(existing, freshVersion(context))),
          ),
          `the administrator registering ${existing}`,
        );
        const outsider = new ProvisioningClient(await context.callers.local(), context.sut.gatewayJid);
        const replies = [
          await outsider.status(existing),
          await outsider.status(freshEndpoint(context, 'absent').jid),
        ] as const;
        for (const reply of replies) {
          expectStanzaError(reply, 'errors.not-found-equivalence', ['forbidden', 'item-not-found'], context);
        }
        expectSameErrorPayload(replies, 'errors.not-found-equivalence');
      }),
  },
  {
    id: 'registration-flow.tombstone-conflict',
    requirements: ['registration-flow.tombstone-conflict'],
    profiles: ['admin-provisioning'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-24'],
    statement:
      'Once a version is removed, other content under it is a conflict; after the whole endpoint is removed, other content under any of its versions still is.',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const admin = await adminFor(context);
        const { jid } = freshEndpoint(context, 'tombstone');
        const v1 = freshVersion(context, '1.0.0');
        const v2 = freshVersion(context, '2.0.0');
        await registerFresh(
          restorer,
          admin,
          jid,
          minimalManifest(jid, v1),
          'registration-flow.tombstone-conflict',
        );
        await registerFresh(
          restorer,
          admin,
          jid,
          minimalManifest(jid, v2),
          'registration-flow.tombstone-conflict',
        );
        expectResultPayload(
          await admin.removeVersion(jid, v1),
          'registration-flow.admin-operations',
          NS_AGENT_API,
          'removed',
        );
        const otherV1 = manifestWithDescription(jid, v1, 'Other content for a removed version.');
        expectRefused(
          await restorer.register(admin, jid, JSON.stringify(otherV1)),
          'registration-flow.tombstone-conflict',
          ['conflict'],
          `other content under the removed ${v1}`,
          context,
        );
        expectResultPayload(
          await admin.removeEndpoint(jid),
          'registration-flow.admin-operations',
          NS_AGENT_API,
          'removed',
        );
        const otherV2 = manifestWithDescription(jid, v2, 'Other content after remove-endpoint.');
        expectRefused(
          await restorer.register(admin, jid, JSON.stringify(otherV2)),
          'registration-flow.tombstone-conflict',
          ['conflict'],
          `other content under ${v2} of the removed endpoint`,
          context,
        );
        await expectStatus(
          context,
          admin,
          jid,
          [],
          'registration-flow.tombstone-conflict',
          'after the refused registrations',
        );
      }),
  },
  {
    id: 'registration-flow.ijson-before-hash',
    requirements: ['registration-flow.ijson-before-hash', 'registration-flow.validate-before-commit'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-10', 'interp-11', 'interp-12'],
    statement:
      'A manifest with a duplicate member name (also inside a tool schema), a lone surrogate escape or a number no double can hold is refused with not-acceptable before anything is hashed or stored.',
    run: async (context) => {
      await expectRefusals(
        context,
        'registration-flow.ijson-before-hash',
        'ijson',
        IJSON_VECTORS.map((vector) => ({
          ...vector,
          // A self-registrant's claim cannot be read from such a text: refusing it as unauthorized is authorization first.
          conditions: (registrant) =>
            registrant.kind === 'self' ? ['not-acceptable', 'forbidden'] : ['not-acceptable'],
        })),
        adminOrSelf,
      );
    },
  },
  {
    id: 'registration-flow.agent-jid-invalid',
    requirements: ['registration-flow.validate-before-commit', 'namespaces.no-resourcepart'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11', 'interp-25'],
    statement:
      'A manifest whose agent.jid is not a valid bare JID — with a resource, a space in the localpart, an empty domainpart or an empty domain label — is refused and not registered.',
    run: async (context) => {
      await expectRefusals(
        context,
        'registration-flow.validate-before-commit',
        'jid',
        [RESOURCE_VECTOR, ...OTHER_JID_VECTORS],
        adminOrSelf,
      );
    },
  },
  {
    id: 'registration-flow.federation-grants-nothing',
    requirements: ['registration-flow.federation-grants-nothing', 'security.federation-deny-default'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-07', 'interp-24'],
    statement:
      'Federated accounts — with principal grants, and from a domain with none — can neither register their own JID nor a virtual endpoint, nor read registration status; nothing gets registered. The positive control first: the same registration from a registrant with the authority succeeds, and so does the administrator’s registration-status.',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const authorized = await adminOrSelf(context, 'federated-control');
        await registrationControl(context, restorer, authorized);
        if (hasAdmin(context)) {
          requirePositiveControl(
            await (await adminFor(context)).status(authorized.jid),
            `the administrator's registration-status of ${authorized.jid}`,
          );
        }
        const registeredJids: string[] = [];
        for (const role of ['remote', 'denied'] as const) {
          const caller = await callerFor(context, role);
          const provisioning = new ProvisioningClient(caller, context.sut.gatewayJid);
          const own = normalizeBareJid(caller.bareJid);
          const virtual = freshEndpoint(context, 'federated').jid;
          for (const jid of [own, virtual]) {
            registeredJids.push(jid);
            const exchange = await restorer.register(
              provisioning,
              jid,
              JSON.stringify(minimalManifest(jid, freshVersion(context))),
            );
            expectRefused(
              exchange,
              'registration-flow.federation-grants-nothing',
              unauthorizedConditions(context),
              `${own} registering ${jid}`,
              context,
            );
          }
          if (hasAdmin(context)) {
            const status = await provisioning.status(own);
            expectStanzaError(
              status,
              'registration-flow.federation-grants-nothing',
              ['forbidden', 'item-not-found'],
              context,
            );
          }
        }
        if (!hasAdmin(context)) return;
        const admin = await adminFor(context);
        for (const jid of registeredJids) {
          const versions = await registeredVersions(
            context,
            admin,
            jid,
            'registration-flow.federation-grants-nothing',
          );
          expectThat(
            describeVersions(versions),
            'registration-flow.federation-grants-nothing',
            `nothing registered under ${jid}`,
            versions.length === 0,
          );
        }
      }),
  },
  {
    id: 'registration-flow.removal-blocked-by-task',
    requirements: ['registration-flow.removal-blocked-by-tasks'],
    profiles: ['admin-provisioning'],
    level: 'MUST',
    features: [FEATURE.admin],
    interpretations: ['interp-24'],
    statement:
      'A task runs and settles on a fresh version of the conformance endpoint; once the original version is active again, removing the fresh version is refused (conflict or not-allowed), registration-status marks it not removable, and the task is still there.',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const target = conformanceTarget(context);
        const admin = await adminFor(context);
        const caller = await context.callers.local();
        restorer.reactivateAtEnd({ jid: target.jid, version: target.version, hash: target.hash });
        const pinned = await registerTargetVersion(admin, target, freshVersion(context, '1.0.2'));
        const pinnedTasks = new TaskSession(context, caller, pinned);
        await activateTarget(admin, pinned);
        const { accepted } = await pinnedTasks.start('script', {
          steps: [{ complete: {} }],
        });
        await pinnedTasks.awaitSettled(accepted.taskId);
        await activateTarget(admin, target);
        // The positive control: a fresh version no task depends on is removed when asked.
        const unused = await registerTargetVersion(admin, target, freshVersion(context, '1.0.3'));
        requirePositiveControl(
          await admin.removeVersion(unused.jid, unused.version),
          `removing ${unused.jid} ${unused.version}, which no task depends on`,
        );
        const removal = await admin.removeVersion(pinned.jid, pinned.version);
        if (removal.parsed.type === 'result') {
          throw new RequirementViolation(
            'registration-flow.removal-blocked-by-tasks',
            `a refusal to remove ${pinned.jid} ${pinned.version}: task ${accepted.taskId} is retained on it (interp-24: conflict or not-allowed)`,
            removal.reply.xml,
          );
        }
        admin.caller.transcript.note(
          `${pinned.jid} ${pinned.version} stays registered (inactive) while task ${accepted.taskId} is retained`,
        );
        expectStanzaError(
          removal,
          'registration-flow.removal-blocked-by-tasks',
          ['conflict', 'not-allowed'],
          context,
        );
        const versions = await registeredVersions(
          context,
          admin,
          pinned.jid,
          'registration-flow.removal-blocked-by-tasks',
        );
        const entry = versions.find((version) => version.id === pinned.version);
        expectThat(
          describeVersions(versions),
          'registration-flow.removal-blocked-by-tasks',
          `${pinned.version} listed inactive and not removable`,
          entry !== undefined && !entry.removable && !entry.active,
        );
        expectThat(
          'an error for its task state',
          'registration-flow.removal-blocked-by-tasks',
          `task ${accepted.taskId} still retained`,
          (await pinnedTasks.state(accepted.taskId)).parsed.type === 'result',
        );
      }),
  },
  ...modelCases,
]);
