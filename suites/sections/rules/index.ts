/**
 * #rules, the business rules that cut across sections: a self-registered manifest claims its
 * registrant's own bare JID; tool lists, tool information and schemas stay pinned to the exact
 * version they name, also when the active pointer moves; and one visibility decision per
 * requester governs the directory, search, endpoint and tool information, manifests and schemas.
 *
 * Only the target settles its tasks: lifecycle events that the caller itself or another
 * principal sends to the endpoint change nothing (rules.only-target-settles). Pinning of
 * invocations and target-side argument validation belong to the task suites; the resource
 * bounds on manifests are probed by #json-encoding's limit cases.
 */
import { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import type { Caller } from '../../../harness/driver/index.ts';
import { canonicalDocument } from '../../../protocol/json/canonical.ts';
import { normalizeBareJid } from '../../../protocol/jid/index.ts';
import { FEATURE, NODE_DIRECTORY, NS, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import {
  buildLifecycleMessage,
  buildSchemaRequest,
  parseRegistered,
  parseSchema,
  type TaskEvent,
} from '../../../protocol/stanza/index.ts';
import { encodeCollectionNode, encodeToolNode } from '../../../protocol/tool-node.ts';
import { defineSuite } from '../../framework/case.ts';
import {
  expectDiscoInfo,
  expectStanzaError,
  expectThat,
  expectParsedResult,
} from '../../framework/expect.ts';
import { CannotTell, MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import { requireWorld, type CallerRole, type FixtureManifest } from '../../fixtures/reference-world.ts';
import { callerFor, discoInfo, listing, traverse } from '../support/discovery.ts';
import { minimalManifest } from '../support/manifests.ts';
import {
  adminFor,
  describeVersions,
  expectForeignClaimsRefused,
  freshEndpoint,
  freshVersion,
  hasAdmin,
  registeredVersions,
  withRestore,
} from '../support/provisioning.ts';
import { readFound, searchLegacy, traverseSearch } from '../support/search.ts';
import { whileHeld } from '../support/held-task.ts';
import { prober } from '../support/task-accounts.ts';
import { expectAccepted, expectTaskState } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import { probe, SURFACES, targetOf } from '../support/surfaces.ts';
import { capacityFreedCases } from './capacity-freed.ts';
import { cancelAndSettle, FILL_RETRIES_MS, invokeOpenWaits, MAX_FILLED_CAPACITY } from './task-capacity.ts';
import { selfRegistrationClaimCases } from './self-registration-claims.ts';

/**
 * Lifecycle events for `taskId` as a target would send them, at the next revision: progress, and
 * every terminal outcome. Whoever else sends them is not the target, so they must change nothing.
 */
function forgedEvents(taskId: string, revision: number, eventId: () => string): TaskEvent[] {
  const event = (type: TaskEvent['type'], json: unknown): TaskEvent => ({
    taskId,
    eventId: eventId(),
    revision,
    type,
    json: JSON.stringify(json),
  });
  return [
    event('progress', { percent: 99, message: 'forged progress' }),
    event('completed', { result: { content: [{ type: 'text', text: 'forged result' }] } }),
    event('failed', { error: { code: 'internal-error', message: 'forged failure', retryable: false } }),
    event('cancelled', { reason: 'forged cancellation' }),
  ];
}

/** The tool nodes a version's collection must list, and does. */
async function expectCollectionPinned(
  caller: Caller,
  jid: string,
  manifest: FixtureManifest,
  when: string,
): Promise<void> {
  const { items, pages } = await traverse(
    caller,
    jid,
    encodeCollectionNode(manifest.version),
    50,
    'rules.version-pinning',
  );
  const nodes = items.map((item) => item.node ?? '').toSorted();
  const expected = manifest.tools.map((tool) => tool.node).toSorted();
  expectThat(
    `${listing(nodes)}\n${pages.at(-1)?.exchange.reply.xml ?? ''}`,
    'rules.version-pinning',
    `${when}, the collection of ${jid} ${manifest.version} lists exactly its own tools:\n${listing(expected)}`,
    nodes.length === expected.length && nodes.every((node, index) => node === expected[index]),
  );
}

export const rulesSuite = defineSuite('rules', 'Business Rules', [
  {
    id: 'rules.self-registration-own-jid',
    // The registration works at the #self-register it rests on: the advertised feature is
    // implemented (conformance.no-false-advertising; refuses-registration fails it).
    requirements: ['rules.self-registration-own-jid', 'conformance.no-false-advertising'],
    profiles: ['self-registration'],
    level: 'MUST',
    features: [FEATURE.selfRegister],
    interpretations: ['interp-07', 'interp-24'],
    statement:
      'A local C2S account registers a manifest claiming its own bare JID (again idempotently, with the same hash), but not one claiming a virtual endpoint or another account; nothing is registered under those.',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const caller = await context.callers.registrant();
        const self = new ProvisioningClient(caller, context.sut.gatewayJid);
        const own = normalizeBareJid(caller.bareJid);
        const version = freshVersion(context);
        const manifest = minimalManifest(own, version);
        const { hash } = canonicalDocument(manifest);
        for (const attempt of ['first', 'repeated']) {
          const exchange = await restorer.register(self, own, JSON.stringify(manifest));
          const registered = expectParsedResult(
            exchange,
            'rules.self-registration-own-jid',
            NS_AGENT_API,
            'registered',
            parseRegistered,
          );
          expectThat(
            exchange.reply.xml,
            'rules.self-registration-own-jid',
            `(${attempt} registration) <registered jid='${own}' version='${version}'> with hash ${hash.value}`,
            normalizeBareJid(registered.jid) === own &&
              registered.version === version &&
              registered.hash.value === hash.value,
          );
        }
        const others = [
          freshEndpoint(context, 'claimed').jid,
          normalizeBareJid((await context.callers.local()).bareJid),
        ];
        await expectForeignClaimsRefused(context, restorer, self, own, others);
        if (!hasAdmin(context)) return;
        const admin = await adminFor(context);
        const ownVersions = await registeredVersions(context, admin, own, 'rules.self-registration-own-jid');
        expectThat(
          describeVersions(ownVersions),
          'rules.self-registration-own-jid',
          `${own} ${version} registered with hash ${hash.value}`,
          ownVersions.some((entry) => entry.id === version && entry.hash.value === hash.value),
        );
        for (const jid of others) {
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
  ...selfRegistrationClaimCases,
  {
    id: 'rules.version-pinning',
    requirements: ['rules.version-pinning'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement:
      'Each version of a multi-version endpoint keeps its own tool collection, tool information and schemas: a tool of the other version is found under that version’s node only, and — when an administrator can move the active pointer — nothing changes when the other version becomes active (the pointer is moved back).',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const world = requireWorld(context);
        const { endpoint, other } = world.multiVersionEndpoint;
        const active = endpoint.active;
        const caller = await context.callers.local();
        const check = async (when: string): Promise<void> => {
          for (const manifest of [active, other])
            await expectCollectionPinned(caller, endpoint.jid, manifest, when);
        };
        await check('with the registered active version');
        const activeNames = new Set(active.tools.map((tool) => tool.name));
        const onlyInOther = other.tools.find((tool) => !activeNames.has(tool.name));
        if (onlyInOther !== undefined) {
          const pinned = await discoInfo(caller, endpoint.jid, onlyInOther.node);
          expectDiscoInfo(pinned, 'rules.version-pinning');
          const elsewhere = await discoInfo(
            caller,
            endpoint.jid,
            encodeToolNode(active.version, onlyInOther.name),
          );
          expectStanzaError(elsewhere, 'rules.version-pinning', 'item-not-found', context);
        }
        const tool = other.tools[0];
        if (tool !== undefined) {
          const exchange = await caller.exchangeIq(
            endpoint.jid,
            'get',
            buildSchemaRequest({
              tool: tool.name,
              version: other.version,
              direction: 'input',
              manifestHash: other.document.hash,
            }),
          );
          const schema = expectParsedResult(
            exchange,
            'rules.version-pinning',
            NS_AGENT_API,
            'schema',
            parseSchema,
          );
          expectThat(
            exchange.reply.xml,
            'rules.version-pinning',
            `the input schema of ${tool.name} in ${other.version} (manifest hash ${other.document.hash.value}):\n${tool.inputSchema.bytes.toString('utf8')}`,
            schema.version === other.version &&
              schema.manifestHash.value === other.document.hash.value &&
              Buffer.from(schema.json, 'utf8').equals(tool.inputSchema.bytes),
          );
        }
        if (!hasAdmin(context)) return;
        const admin = await adminFor(context);
        restorer.reactivateAtEnd({ jid: endpoint.jid, version: active.version, hash: active.document.hash });
        const moved = await admin.activate(endpoint.jid, other.version, other.document.hash);
        if (moved.parsed.type === 'error') {
          throw new CannotTell(
            `could not activate ${endpoint.jid} ${other.version}: ${moved.parsed.error.condition}`,
          );
        }
        await check(`with ${other.version} activated`);
      }),
  },
  {
    id: 'rules.uniform-visibility',
    requirements: ['rules.uniform-visibility', 'privacy.explicit-visibility-policy'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-18', 'interp-23', 'interp-26'],
    statement:
      'For local, principal-granted and domain-granted callers, an endpoint is in the directory exactly when its endpoint information, active manifest, tool information and schema answer, and exactly when an empty search lists it (if it lists anything).',
    run: async (context) => {
      const world = requireWorld(context);
      const gateway = context.sut.gatewayJid;
      const surfaces = SURFACES.filter(
        (surface) =>
          ['endpoint info', 'active manifest', 'tool info', 'input schema'].includes(surface.name) &&
          (context.sut.profiles.has('tool-discovery') || !surface.toolDiscovery),
      );
      const active = world.endpoints.filter(
        (endpoint) => endpoint.active !== undefined && endpoint.active.tools.length > 0,
      );
      if (active.length === 0) {
        throw new MissingFixture('the fixture world has no active endpoint with tools: give it one');
      }
      for (const role of ['local', 'remote', 'remotePeer'] as readonly CallerRole[]) {
        const caller = await callerFor(context, role);
        const listed = (
          await traverse(caller, gateway, NODE_DIRECTORY, 50, 'rules.uniform-visibility')
        ).items.map((item) => normalizeBareJid(item.jid));
        if (context.sut.features.has(NS.search)) {
          const probeExchange = await searchLegacy(caller, gateway, {}, { max: 50 });
          if (
            probeExchange.parsed.type === 'result' &&
            readFound(probeExchange, 'rules.uniform-visibility').jids.length > 0
          ) {
            const found = await traverseSearch(
              (rsm) => searchLegacy(caller, gateway, {}, rsm),
              50,
              'rules.uniform-visibility',
            );
            // Deactivated endpoints either may show with a warning only (interp-23): compare the rest.
            const inactive = new Set(world.toleratedFor(role).map((endpoint) => endpoint.jid));
            const searched = found.jids
              .map((jid) => normalizeBareJid(jid))
              .filter((jid) => !inactive.has(jid))
              .toSorted();
            const directory = listed.filter((jid) => !inactive.has(jid)).toSorted();
            expectThat(
              listing(searched),
              'rules.uniform-visibility',
              `the ${role} caller’s empty search listing what its directory lists:\n${listing(listed)}`,
              searched.join('\n') === directory.join('\n'),
            );
          }
        }
        const outcomes = await Promise.all(
          active.flatMap((endpoint) =>
            surfaces.map(async (surface) => ({
              endpoint,
              surface,
              exchange: await probe(caller, targetOf(endpoint), surface),
            })),
          ),
        );
        for (const { endpoint, surface, exchange } of outcomes) {
          const inDirectory = listed.includes(endpoint.jid);
          expectThat(
            exchange.reply.xml,
            'rules.uniform-visibility',
            `${surface.name} of ${endpoint.jid} ${inDirectory ? 'answered' : 'not found'} for the ${role} caller, as the directory ${inDirectory ? 'lists' : 'omits'} it`,
            (exchange.parsed.type === 'result') === inDirectory,
          );
        }
      }
    },
  },
  {
    id: 'rules.only-target-settles',
    requirements: ['rules.only-target-settles'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'Progress and terminal events for a running task (held by a wait step), sent to its endpoint by the task’s own caller and by a federated principal, change nothing: the task stays running at its revision, and once it completes by itself its history holds only the target’s own events.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const remote = await context.callers.remote();
      const eventId = (): string =>
        `evt-${context.random.string('abcdefghijklmnopqrstuvwxyz0123456789', 24)}`;
      // The task must outlive the forgeries: a wait step, which needs no interactive feature.
      const { task } = await whileHeld(tasks, async ({ accepted, running }) => {
        const revision = running.event.revision;
        for (const sender of [caller, remote]) {
          const senderTasks = new TaskSession(context, sender, target);
          for (const event of forgedEvents(accepted.taskId, revision + 1, eventId)) {
            await sender.send(buildLifecycleMessage({ to: target.jid }, event));
          }
          // An IQ after the messages on the same route: when it is answered, they were delivered.
          await senderTasks.state(accepted.taskId);
        }
        const exchange = await tasks.state(accepted.taskId);
        const state = expectTaskState(exchange, 'rules.only-target-settles');
        expectThat(
          exchange.reply.xml,
          'rules.only-target-settles',
          `the task still running at revision ${String(revision)}, untouched by the forged events`,
          state.state === 'running' && state.revision === revision,
        );
      });
      const history = await tasks.awaitSettled(task.accepted.taskId);
      const forged = history.filter((received) => received.event.json.includes('forged'));
      const last = history.at(-1);
      expectThat(
        history.map((received) => received.stanza.xml).join('\n'),
        'rules.only-target-settles',
        `the target's own completed event at revision ${String(task.running.event.revision + 1)}, and no forged event in the history`,
        forged.length === 0 &&
          last?.event.type === 'completed' &&
          last.event.revision === task.running.event.revision + 1,
      );
    },
  },
  {
    id: 'rules.task-capacity',
    requirements: ['rules.resource-bounds'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-42'],
    statement:
      'A caller of its own holding as many open tasks (waits that end on cancellation) as the SUT file documents one caller may hold (limits.activeTasksPerCaller) gets resource-constraint for one more invocation, which creates no task; every task it made then settles once cancelled.',
    run: async (context) => {
      const capacity = context.sut.limits?.activeTasksPerCaller;
      if (capacity === undefined) {
        throw new MissingFixture(
          'the SUT file documents no task capacity (limits.activeTasksPerCaller, the most non-terminal tasks one caller may hold): document it to have the task-count bound of #rules tested',
        );
      }
      if (capacity > MAX_FILLED_CAPACITY) {
        throw new MissingFixture(
          `the documented task capacity per caller (${String(capacity)}) is more than a run fills (${String(MAX_FILLED_CAPACITY)}): configure and document a smaller one to have it tested`,
        );
      }
      const target = conformanceTarget(context);
      const caller = await prober(context);
      const tasks = new TaskSession(context, caller, target);
      const made: string[] = [];
      try {
        // The positive control: every invocation up to the capacity is admitted.
        for (const { exchange, invoke } of await invokeOpenWaits(tasks, capacity)) {
          if (exchange.parsed.type === 'error' && exchange.parsed.error.condition === 'resource-constraint') {
            throw new CannotTell(
              `invocation ${String(made.length + 1)} of the documented ${String(capacity)} still got resource-constraint after ${String(FILL_RETRIES_MS.length)} pauses: a rate limit, pending work or tasks of ${caller.bareJid} from elsewhere stood in the way`,
            );
          }
          made.push(expectAccepted(exchange, 'invocation.required-parts', invoke).taskId);
        }
        const { exchange: past, invoke } = (await invokeOpenWaits(tasks, 1, false))[0] ?? {};
        if (past === undefined || invoke === undefined) throw new Error('unreachable: one invocation sent');
        if (past.parsed.type === 'result') {
          made.push(expectAccepted(past, 'invocation.required-parts', invoke).taskId);
          throw new RequirementViolation(
            'rules.resource-bounds',
            `resource-constraint for invocation ${String(capacity + 1)}: ${caller.bareJid} already holds the documented ${String(capacity)} non-terminal tasks (limits.activeTasksPerCaller)`,
            past.reply.xml,
          );
        }
        expectStanzaError(past, 'rules.resource-bounds', 'resource-constraint', context);
      } catch (error) {
        // The verdict stands; the cleanup only keeps the tasks from outliving the case.
        await cancelAndSettle(tasks, made).catch(() => undefined);
        throw error;
      }
      await cancelAndSettle(tasks, made);
    },
  },
  ...capacityFreedCases,
]);
