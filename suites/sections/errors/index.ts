/**
 * #errors: every get or set IQ gets an answer, an error when nothing handles it; objects that do
 * not exist and objects the caller may not see (hidden from everyone, or only from this caller)
 * get the same item-not-found on every discovery and metadata surface, byte for byte apart from
 * the id and the address asked (interp-16, interp-17, interp-19); and error replies leave out
 * the JSON the request carried.
 *
 * With task execution: error texts and failure messages carry no implementation internals and
 * nothing of another principal's task (a canary planted in a federated caller's arguments), and
 * task operations keep working for the task's caller after its endpoint stops being visible
 * (deactivated by the administrator, interp-23). Every error text of every case is also checked
 * by the wire checks (suites/framework/wire-checks.ts).
 */
import { ProvisioningClient } from '../../../harness/provisioning/provisioning-client.ts';
import { xml, type Element } from '@xmpp/xml';
import { NODE_DIRECTORY, NS, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { buildInvoke } from '../../../protocol/stanza/index.ts';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectAnyStanzaError,
  expectDiscoItems,
  expectIndistinguishable,
  expectResultPayload,
  expectSameErrorPayload,
  expectStanzaError,
  expectThat,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { isTerminal } from '../../../protocol/task-states.ts';
import { CannotTell, MissingFixture, NotApplicable, RequirementViolation } from '../../framework/verdicts.ts';
import { unsafeTrace } from '../../framework/safe-text.ts';
import { requireWorld, type CallerRole, type FixtureEndpoint } from '../../fixtures/reference-world.ts';
import { callerFor, discoItems, roleThatMaySee } from '../support/discovery.ts';
import { minimalManifest } from '../support/manifests.ts';
import {
  adminFor,
  freshEndpoint,
  freshToken,
  freshVersion,
  hasAdmin,
  registrantFor,
  withRestore,
} from '../support/provisioning.ts';
import { nonexistentLike, probe, surfacesFor, targetOf, type Target } from '../support/surfaces.ts';
import { decided, escalating, tooShort } from '../support/escalating.ts';
import { HOLDS_MS, whileHeld } from '../support/held-task.ts';
import { offeredTaskOperations } from '../support/raw-operations.ts';
import { inputRequestId, terminalPayload } from '../support/task-events.ts';
import {
  expectCancelAccepted,
  expectInputAccepted,
  expectTaskResult,
  expectTaskState,
} from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { activateTarget, conformanceTarget } from '../support/task-target.ts';
import { badInputCases } from './bad-input.ts';
import { exchangeOrSilence } from '../support/bad-input.ts';

/**
 * Every stanza `caller` received must leave out the planted markers, and the error texts among
 * them must carry no implementation trace (suites/framework/safe-text.ts).
 */
function expectSafeInbound(caller: Caller, planted: readonly string[], since: number): void {
  for (const stanza of caller.inbound.slice(since)) {
    const leaked = planted.filter((marker) => stanza.xml.includes(marker));
    if (leaked.length > 0) {
      throw new RequirementViolation(
        'errors.safe-messages',
        `nothing sent to ${caller.jid} carries another principal's data (${planted.join(', ')})`,
        stanza.xml,
        `errors.safe-messages: a stanza to ${caller.jid} carries ${leaked.join(', ')}`,
      );
    }
    const element = stanza.element;
    const text = element?.getChild('error')?.getChildText('text', NS.stanzas) ?? undefined;
    const trace = text === undefined ? undefined : unsafeTrace(text);
    if (trace !== undefined) {
      throw new RequirementViolation(
        'errors.safe-messages',
        'error texts without implementation internals',
        stanza.xml,
        `errors.safe-messages: an error text carries ${trace}`,
      );
    }
  }
}

/**
 * On every surface, the unseen target and the nonexistent one get indistinguishable answers:
 * item-not-found, or (where interp-16 allows) both the same empty result.
 */
async function expectUnseenLikeNonexistent(
  context: CaseContext,
  caller: Caller,
  role: CallerRole,
  unseen: readonly FixtureEndpoint[],
): Promise<void> {
  const world = requireWorld(context);
  const nobody = freshEndpoint(context, 'nobody').jid;
  // The positive control: on every surface, each unseen endpoint answers a role that may see it.
  for (const endpoint of unseen) {
    const seer = await callerFor(context, roleThatMaySee(world, endpoint));
    await Promise.all(
      surfacesFor(context).map(async (surface) => {
        requirePositiveControl(
          await probe(seer, targetOf(endpoint), surface),
          `${surface.name} of ${endpoint.jid} for ${seer.bareJid}, who may see it`,
        );
      }),
    );
  }
  await Promise.all(
    surfacesFor(context).map(async (surface) => {
      const targets: Target[] = unseen.map(targetOf);
      const first = targets[0];
      if (first === undefined) return;
      const missing = nonexistentLike(first, nobody);
      const replies = await Promise.all(
        [missing, ...targets].map((target) => probe(caller, target, surface)),
      );
      for (const exchange of replies) {
        if (exchange.parsed.type === 'result' && surface.emptyResultAllowed) continue;
        expectStanzaError(exchange, 'errors.not-found-equivalence', 'item-not-found', context);
      }
      const labelled = replies.map((exchange, index) => {
        const target = index === 0 ? missing : targets[index - 1];
        const what = index === 0 ? 'nonexistent' : 'unseen';
        return {
          label: `${role}: ${surface.name} of ${what} ${target?.jid ?? ''}`,
          exchange,
          to: target?.jid ?? '',
        };
      });
      const [a, b, ...rest] = labelled;
      if (a !== undefined && b !== undefined)
        expectIndistinguishable([a, b, ...rest], 'errors.not-found-equivalence', context);
    }),
  );
}

/** task-result of the deactivated endpoint's task answers with the state it settled in. */
async function expectResultState(tasks: TaskSession, taskId: string, state: string): Promise<void> {
  const resultExchange = await tasks.result(taskId);
  const result = expectTaskResult(resultExchange, 'errors.task-ops-survive-visibility-change');
  expectThat(
    resultExchange.reply.xml,
    'errors.task-ops-survive-visibility-change',
    `the ${state} result of the deactivated endpoint’s task`,
    result.state === state,
  );
}

/**
 * State and result need no optional feature: a task held running by a wait step, its endpoint
 * deactivated meanwhile, still answers task-state (running) and, once settled, task-result.
 */
async function expectStateAndResultWhileDeactivated(
  tasks: TaskSession,
  admin: ProvisioningClient,
): Promise<void> {
  const { target } = tasks;
  const { task } = await whileHeld(
    tasks,
    async ({ accepted }) => {
      expectResultPayload(
        await admin.deactivate(target.jid),
        'errors.task-ops-survive-visibility-change',
        NS_AGENT_API,
        'deactivated',
      );
      const stateExchange = await tasks.state(accepted.taskId);
      const state = expectTaskState(stateExchange, 'errors.task-ops-survive-visibility-change');
      expectThat(
        stateExchange.reply.xml,
        'errors.task-ops-survive-visibility-change',
        'task state running for the deactivated endpoint’s task',
        state.state === 'running' && state.taskId === accepted.taskId,
      );
    },
    {},
    {
      // A task that settled too early is tried again with the endpoint active.
      beforeRetry: () => activateTarget(admin, target),
    },
  );
  const held = await tasks.awaitSettled(task.accepted.taskId);
  await expectResultState(tasks, task.accepted.taskId, terminalPayload(held).state);
}

/**
 * The optional operations, on a task started while the endpoint is active again and deactivated
 * once it waits: a pending input request is answered and the task cancels, where offered.
 */
async function expectOptionalOperationsWhileDeactivated(
  tasks: TaskSession,
  admin: ProvisioningClient,
): Promise<void> {
  const { caller, target } = tasks;
  await activateTarget(admin, target);
  const operations = await offeredTaskOperations(caller, target);
  const withInput = operations.includes('provide-input');
  const withCancel = operations.includes('cancel');
  if (!withInput && !withCancel) return;
  const { accepted } = await tasks.start('script', {
    steps: [
      ...(withInput
        ? [{ input: { question: 'Still there?', inputSchema: { type: 'object' }, expiresInMs: 60_000 } }]
        : []),
      withCancel ? { wait: {} } : { complete: { echoInputs: true } },
    ],
  });
  const started = withInput
    ? await tasks.awaitEvent(accepted.taskId, 'input_required')
    : await tasks.awaitEvent(accepted.taskId, 'status');
  expectResultPayload(
    await admin.deactivate(target.jid),
    'errors.task-ops-survive-visibility-change',
    NS_AGENT_API,
    'deactivated',
  );
  let revision = started.event.revision;
  if (withInput) {
    const answered = expectInputAccepted(
      await tasks.provideInput(accepted.taskId, inputRequestId(started), revision, { here: true }),
      'errors.task-ops-survive-visibility-change',
    );
    revision = answered.revision;
  }
  if (withCancel) {
    expectCancelAccepted(
      await tasks.cancel(accepted.taskId, revision),
      'errors.task-ops-survive-visibility-change',
    );
  }
  const history = await tasks.awaitSettled(accepted.taskId);
  await expectResultState(tasks, accepted.taskId, terminalPayload(history).state);
}

export const errorsSuite = defineSuite('errors', 'Error Handling', [
  {
    id: 'errors.unhandled-iq',
    requirements: ['errors.unhandled-iq-error'],
    // A self-registration gateway is a component too: its unknown IQs are decided the same way.
    profiles: ['core-directory', 'self-registration'],
    level: 'MUST',
    interpretations: ['interp-42'],
    statement:
      'A get or set IQ whose payload nothing handles — an unknown namespace, or an unknown element of urn:xmpp:agent-api:0 — is answered with an IQ error, at the gateway and at an endpoint.',
    run: async (context) => {
      const caller = await context.callers.local();
      const gateway = context.sut.gatewayJid;
      const directory = await discoItems(caller, gateway, NODE_DIRECTORY, { max: 1 });
      const endpoint =
        directory.parsed.type === 'result'
          ? expectDiscoItems(directory, 'errors.unhandled-iq-error').items[0]?.jid
          : undefined;
      const unknown = (): Element => xml('query', { xmlns: `urn:agentconf:unknown:${freshToken(context)}` });
      const requests = [
        { to: gateway, type: 'get' as const, payload: unknown() },
        { to: gateway, type: 'set' as const, payload: unknown() },
        { to: gateway, type: 'set' as const, payload: xml('frobnicate', { xmlns: NS_AGENT_API }) },
        ...(endpoint === undefined
          ? []
          : [
              { to: endpoint, type: 'get' as const, payload: unknown() },
              { to: endpoint, type: 'set' as const, payload: unknown() },
            ]),
      ];
      // Silence is the violation here, not a harness failure: the IQ rules demand an answer.
      const replies = await Promise.all(
        requests.map(({ to, type, payload }) =>
          exchangeOrSilence(
            () => caller.exchangeIq(to, type, payload),
            'errors.unhandled-iq-error',
            `a ${type} payload nothing handles (<${payload.name} xmlns='${String(payload.attrs['xmlns'])}'/>, to ${to})`,
          ),
        ),
      );
      for (const exchange of replies) expectAnyStanzaError(exchange, 'errors.unhandled-iq-error', context);
      // The gateway half alone does not decide the requirement: endpoints answer on their own.
      if (endpoint === undefined) {
        throw new MissingFixture(
          `the directory lists no endpoint to the local caller (${directory.parsed.type === 'result' ? 'an empty listing' : 'an error'}), so the endpoint half cannot run: the fixture world's visible endpoints are missing`,
        );
      }
    },
  },
  {
    id: 'errors.hidden-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['errors.not-found-equivalence', 'rules.uniform-visibility'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-16', 'interp-17', 'interp-19', 'interp-42'],
    statement:
      'To a local caller, a hidden endpoint answers on every surface (endpoint info and items, tool collection, tool info, manifests, schema) exactly like an endpoint that does not exist: item-not-found, the same bytes apart from id and sender.',
    run: async (context) => {
      const world = requireWorld(context);
      await expectUnseenLikeNonexistent(context, await context.callers.local(), 'local', [
        world.hiddenEndpoint,
      ]);
    },
  },
  {
    id: 'errors.unauthorized-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['errors.not-found-equivalence', 'rules.uniform-visibility'],
    profiles: ['core-directory'],
    level: 'MUST',
    interpretations: ['interp-16', 'interp-17', 'interp-19', 'interp-42'],
    statement:
      'To federated callers, endpoints their grants do not let them see (visible to others, or hidden) answer on every surface exactly like an endpoint that does not exist; the <error/> is the same one a local caller gets for a hidden endpoint. Two such endpoints per caller, drawn by the seed.',
    run: async (context) => {
      const world = requireWorld(context);
      for (const role of ['remote', 'remotePeer'] as const) {
        const unseen = world.endpoints.filter(
          (endpoint) =>
            endpoint.active !== undefined &&
            !world.maySee(role, endpoint) &&
            endpoint.active.tools.length > 0,
        );
        if (unseen.length === 0) continue;
        await expectUnseenLikeNonexistent(
          context,
          await callerFor(context, role),
          role,
          context.random.shuffle(unseen).slice(0, 2),
        );
      }
      // interp-19: across callers too, the error element itself does not depend on who asks.
      const hidden = targetOf(world.hiddenEndpoint);
      const endpointInfo = surfacesFor(context)[0];
      if (endpointInfo === undefined) return;
      const local = await probe(await context.callers.local(), hidden, endpointInfo);
      const unseenByPeer = world.endpoints.find(
        (endpoint) => endpoint.active !== undefined && !world.maySee('remotePeer', endpoint),
      );
      if (unseenByPeer === undefined) {
        throw new MissingFixture(
          'every active endpoint of the fixture world is visible to the domain-granted caller: nothing shows what it may not see',
        );
      }
      const remote = await probe(await context.callers.remotePeer(), targetOf(unseenByPeer), endpointInfo);
      expectSameErrorPayload([local, remote], 'errors.not-found-equivalence');
    },
  },
  {
    id: 'errors.no-payload-echo',
    requirements: ['errors.no-payload-echo'],
    profiles: ['core-directory', 'self-registration', 'admin-provisioning'],
    level: 'SHOULD',
    statement:
      'Error replies leave out the attacker-controlled JSON the request carried, or truncate it: refused registrations (schema-invalid, malformed, unauthorized) and refused invocations (unknown tool, schema-invalid arguments) never echo a marker planted in the JSON behind 4 KiB of padding.',
    run: async (context) =>
      withRestore(context, async (restorer) => {
        const registers =
          context.sut.profiles.has('self-registration') || context.sut.profiles.has('admin-provisioning');
        const invokes = context.sut.profiles.has('task-execution');
        if (!registers && !invokes) {
          throw new NotApplicable(
            'the SUT claims no profile that takes JSON from a caller (registration or invocation): there is nothing to reflect',
          );
        }
        // Before anything is sent: without a fixture world (a gateway that registers but hosts
        // nothing) the case says so as its reason, instead of being cut off while refusals it
        // sent are still in flight.
        const target = invokes ? conformanceTarget(context) : undefined;
        const canary = `agentconfcanary${freshToken(context)}`;
        // Behind the padding: a responder that truncates what it echoes (#errors allows it) drops it.
        const padding = 'p'.repeat(4096);
        const planted = { padding, marker: canary };
        // Started together at the end, so that no exchange is in flight while a step can throw.
        const checks: (() => Promise<IqExchange>)[] = [];
        const expectRefusedUnreflected = async (exchange: Promise<IqExchange>): Promise<void> => {
          const reply = await exchange;
          expectThat(reply.reply.xml, 'errors.no-payload-echo', 'a refusal', reply.parsed.type === 'error');
          if (reply.reply.xml.includes(canary)) {
            context.warn(
              'errors.no-payload-echo',
              `an error reply carries the JSON the request sent (the marker ${canary} behind 4 KiB of padding): ${reply.reply.xml.slice(0, 300)}…`,
            );
          }
        };
        if (registers) {
          const registrant = await registrantFor(context, 'echo');
          const version = freshVersion(context);
          const invalid = JSON.stringify({
            manifestSpecVersion: '0',
            agent: { jid: registrant.jid, name: 'agentconf-echo', version, unknownMember: planted },
            tools: [{ name: 'echo', inputSchema: { type: 'no-such-type', description: canary } }],
          });
          const malformed = `{"manifestSpecVersion":"0","_":${JSON.stringify(planted)},"agent":{"jid":${JSON.stringify(registrant.jid)},"name":"${canary}`;
          const local = await context.callers.local();
          const unauthorized = new ProvisioningClient(local, context.sut.gatewayJid);
          const claim = freshEndpoint(context, 'echo').jid;
          const foreign = JSON.stringify({
            ...minimalManifest(claim, freshVersion(context)),
            agentconf: planted,
          });
          for (const [provisioning, jid, text] of [
            [registrant.provisioning, registrant.jid, invalid],
            [registrant.provisioning, registrant.jid, malformed],
            [unauthorized, claim, foreign],
          ] as const) {
            checks.push(() => restorer.register(provisioning, jid, text));
          }
        }
        if (target !== undefined) {
          const caller = await context.callers.local();
          const invoke = (tool: string, argumentsJson: string): Promise<IqExchange> =>
            caller.exchangeIq(
              target.jid,
              'set',
              buildInvoke({
                requestId: freshRequestId(context),
                tool,
                apiVersion: target.version,
                manifestHash: target.hash,
                argumentsJson,
              }),
            );
          checks.push(() => invoke(`no-such-tool-${canary}`, JSON.stringify(planted)));
          // script.typed takes no such member: schema-invalid arguments, refused before admission.
          checks.push(() => invoke('script.typed', JSON.stringify({ steps: planted })));
        }
        await Promise.all(checks.map((send) => expectRefusedUnreflected(send())));
      }),
  },
  {
    id: 'errors.safe-messages',
    requirements: ['errors.safe-messages'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'While a federated caller’s task runs with a canary in its arguments, another caller provokes errors — state, result, cancel and input for that task, schema-invalid arguments, a tool output the gateway must refuse, an unqualified failure code, a script that never settles — and nothing it receives carries the canary, the other caller’s JID or an implementation trace.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const owner = await context.callers.remote();
      const ownerTasks = new TaskSession(context, owner, target);
      const canary = `agentconfsecret${freshToken(context)}`;
      const planted = [canary, owner.bareJid];
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const since = caller.inbound.length;
      // The owner's task is held by a wait as short as the refusals allow, and longer only when
      // it had settled before they were done: they are judged against a task that runs.
      const held = await escalating(HOLDS_MS, async ({ ms }) => {
        const foreign = await ownerTasks.start('script', {
          steps: [{ wait: { ms } }, { complete: { structuredContent: { value: canary }, summary: canary } }],
        });
        const taskId = foreign.accepted.taskId;
        const refusals = [
          await tasks.state(taskId),
          await tasks.result(taskId),
          await tasks.cancel(taskId, 0),
          await tasks.provideInput(taskId, freshRequestId(context), 1, { value: 'mine' }),
          (await tasks.invoke('script', { steps: 'not a list' })).exchange,
        ];
        for (const exchange of refusals) {
          expectThat(
            exchange.reply.xml,
            'errors.safe-messages',
            'a refusal',
            exchange.parsed.type === 'error',
          );
        }
        const state = expectTaskState(await ownerTasks.state(taskId), 'task-recovery.state-contents');
        if (!isTerminal(state.state)) return decided(taskId);
        await ownerTasks.awaitSettled(taskId);
        return tooShort(undefined);
      });
      if (held.kind === 'exhausted')
        throw new CannotTell(
          `the owner's task held running by a wait of ${String(held.ms)} ms had settled before the other caller's refusals were done: the machine is too slow to tell`,
        );
      const taskId = held.value;
      const failing: readonly (readonly [string, JsonObject])[] = [
        ['script.typed', { steps: [{ complete: { structuredContent: { value: 1 } } }] }],
        ['script', { steps: [{ fail: { code: 'quota', message: 'unqualified', retryable: false } }] }],
        ['script', { steps: [] }],
      ];
      for (const [tool, args] of failing) {
        const { accepted } = await tasks.start(tool, args);
        const history = await tasks.awaitSettled(accepted.taskId);
        const { state } = terminalPayload(history);
        expectThat(
          history.at(-1)?.stanza.xml ?? '',
          'errors.safe-messages',
          `${tool} ${JSON.stringify(args)} failing`,
          state === 'failed',
        );
        await tasks.result(accepted.taskId);
      }
      expectSafeInbound(caller, planted, since);
      await ownerTasks.awaitSettled(taskId);
    },
  },
  {
    id: 'errors.task-ops-survive-deactivation',
    // It changes, as the administrator, the directory the read-only cases read: never beside them.
    alongside: false,
    requirements: ['errors.task-ops-survive-visibility-change'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-23', 'interp-26'],
    statement:
      "After the administrator deactivates the endpoint of a running task (held by a wait step), so that its caller no longer sees it, the caller still gets the task's state and then its result; where the endpoint offers #input and #cancel, it also answers a pending input request and cancels (the endpoint is reactivated afterwards). Cannot tell without administrator access.",
    run: async (context) => {
      if (!hasAdmin(context)) {
        throw new MissingFixture(
          'needs administrator access to deactivate the endpoint of a running task: claim Administrative Provisioning, advertise #admin and name the adminJid in the SUT file',
        );
      }
      await withRestore(context, async (restorer) => {
        const target = conformanceTarget(context);
        const caller = await context.callers.local();
        const tasks = new TaskSession(context, caller, target);
        const admin = await adminFor(context);
        restorer.reactivateAtEnd({ jid: target.jid, version: target.version, hash: target.hash });
        await expectStateAndResultWhileDeactivated(tasks, admin);
        await expectOptionalOperationsWhileDeactivated(tasks, admin);
      });
    },
  },
  ...badInputCases,
]);
