/**
 * #invocation: durable admission answered with <accepted/>, identifiers, replay of the identical
 * request (same task, the tool runs once: the ledger counter stays at 1) and conflicts for every
 * fingerprint part changed alone, authorization before any validity error (unknown and
 * unauthorized alike, invocation apart from visibility), then the validity errors an authorized
 * caller gets: stale hash, unknown version, schema-invalid arguments, missing parts, deadlines
 * without a zone or already past. A task stays pinned to the version and manifest hash it was
 * admitted with when the administrator activates another version while it runs.
 */
import type { Element } from '@xmpp/xml';
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { dateTimeFromMillis, toEpochMillis, type XmppDateTime } from '../../../protocol/datetime.ts';
import { buildInvoke, type Invoke } from '../../../protocol/stanza/index.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectAnyStanzaError,
  expectDiscoInfo,
  expectIndistinguishable,
  expectSameErrorPayload,
  expectStanzaError,
  expectThat,
} from '../../framework/expect.ts';
import { CannotTell, MissingFixture } from '../../framework/verdicts.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import { duplicates, estimatedBits, IDENTIFIER_ALPHABET_SIZE, varyingPositions } from './identifiers.ts';
import { MINIMUM_IDENTIFIERS } from './identifier-bits.ts';
import { BATTERY_ALPHA, expectUnpredictableBits, REQUIRED_BITS } from './identifier-predictability.ts';
import { decided, escalating, tooShort } from '../support/escalating.ts';
import { discoInfo } from '../support/discovery.ts';
import { adminFor, freshVersion, hasAdmin, withRestore } from '../support/provisioning.ts';
import { expectServedManifest, manifestRequest } from '../support/served-manifest.ts';
import {
  instantFromNow,
  measureGatewayClock,
  passOnGatewayClock,
  SHORT_RETENTION_MS,
  startShortlyRetained,
} from '../support/gateway-clock.ts';
import { whileHeld } from '../support/held-task.ts';
import { expectLedgerUntouched, freshLedgerKey, readLedger } from '../support/ledger.ts';
import { terminalPayload } from '../support/task-events.ts';
import { expectAccepted, expectTaskState } from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import {
  activateTarget,
  conformanceTarget,
  registerTargetVersion,
  targetOf,
  type TaskTarget,
} from '../support/task-target.ts';
import { crashOnTheWireCases } from './crash-on-the-wire.ts';
import { linkFaultCases } from './link-faults.ts';
import { modelCases } from './model-checks.ts';

/** A short script that completes at once: admission cases need a task, not a long one. */
const QUICK = { steps: [{ complete: {} }] };

/** How far ahead the replayed task's deadline lies, try by try (its retention follows it). */
const REPLAY_DEADLINES_MS = [300, 2_000] as const;

/** Task IDs compared position by position, from invocations one after another. */
const SEQUENTIAL_IDS = 8;
/** Further task IDs for the statistical estimate, invoked eight at a time. */
const CONCURRENT_IDS = 56;
/** Below this estimate of random bits a sample of IDs is warned about (128 bits give about 125). */
const WARN_BELOW_BITS = 100;

/** A sha-256 value that is not the manifest's: a stale pin. */
const STALE_HASH = { algo: 'sha-256', value: 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=' };

/** Sends an <invoke/> edited after building: for parts the codec will not write. */
function sendEdited(
  caller: Caller,
  to: string,
  invoke: Invoke,
  edit: (element: Element) => void,
): Promise<IqExchange> {
  const element = buildInvoke(invoke);
  edit(element);
  return caller.exchangeIq(to, 'set', element);
}

function invokeOf(context: CaseContext, target: TaskTarget, tool: string, args: unknown): Invoke {
  return {
    requestId: freshRequestId(context),
    tool,
    apiVersion: target.version,
    manifestHash: target.hash,
    argumentsJson: JSON.stringify(args),
  };
}

export const invocationSuite = defineSuite('invocation', 'Invocation', [
  {
    id: 'invocation.accepted-durable',
    requirements: [
      'invocation.identifier-grammar',
      'task-recovery.state-contents',
      'invocation.required-parts',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'An admitted invocation is answered with <accepted/> echoing the request ID, at revision 0, with a task ID of the identifier grammar, a creation time and a retention promise; the task then exists for task-state at once.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const { accepted } = await tasks.start('script', QUICK);
      const state = expectTaskState(await tasks.state(accepted.taskId), 'task-recovery.state-contents');
      expectThat(
        `task ${state.taskId}, created ${state.created.text}`,
        'task-recovery.state-contents',
        `the admitted task ${accepted.taskId}, created ${accepted.created.text}`,
        state.taskId === accepted.taskId && state.created.epochSeconds === accepted.created.epochSeconds,
      );
      await tasks.awaitSettled(accepted.taskId);
    },
  },
  {
    id: 'invocation.identifiers-unpredictable',
    requirements: ['invocation.identifier-unpredictability', 'invocation.identifier-grammar'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement: `Task IDs of ${String(SEQUENTIAL_IDS)} consecutive invocations, of ${String(SEQUENTIAL_IDS + CONCURRENT_IDS)} in all, and the event IDs of their tasks are all distinct; the consecutive task IDs differ in enough characters to hold 64 bits; and in each sample, after a predictor battery (bit balance, repeats, increments in every window, the creation clock) has marked the bit positions it guesses from earlier IDs beyond chance, at least ${String(REQUIRED_BITS)} bits remain (a counter or a clock in place of random bits leaves fewer; a fixed or time prefix beside 128 random bits is fine), and no more IDs than chance allows fit V8's Math.random (draws obeying its generator's parity checks). The battery's false-positive probability for CSPRNG IDs, at most ${BATTERY_ALPHA.toExponential(0)}, is printed; fewer than ${String(MINIMUM_IDENTIFIERS)} IDs of one length in a sample decide nothing (cantTell). A per-position estimate below ${String(WARN_BELOW_BITS)} bits over all task IDs, or over all event IDs, is a warning: statistics on a sample show only gross failures (spec positions, section I).`,
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const session = new TaskSession(context, caller, target);
      // In send order, which does not depend on the IDs (the battery's predictors rely on it).
      const admitted: { taskId: string; createdMs: number }[] = [];
      const admit = (accepted: { taskId: string; created: XmppDateTime }): void => {
        admitted.push({ taskId: accepted.taskId, createdMs: toEpochMillis(accepted.created) });
      };
      for (let index = 0; index < SEQUENTIAL_IDS; index++) {
        admit((await session.start('script', QUICK)).accepted);
      }
      const sequential = admitted.map(({ taskId }) => taskId);
      // The rest in batches; a gateway may refuse some for capacity or rate (#security), which
      // only makes the sample smaller.
      let limited = false;
      for (let sent = 0; sent < CONCURRENT_IDS && !limited; sent += 8) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(8, CONCURRENT_IDS - sent) }, () => session.invoke('script', QUICK)),
        );
        for (const { invoke, exchange } of batch) {
          if (exchange.parsed.type === 'error' && exchange.parsed.error.condition === 'resource-constraint') {
            limited = true;
            continue;
          }
          admit(expectAccepted(exchange, 'invocation.identifier-grammar', invoke));
        }
      }
      const tasks = admitted.map(({ taskId }) => taskId);
      const events: string[] = [];
      for (const taskId of tasks) {
        const history = await session.awaitSettled(taskId);
        events.push(
          ...[...history]
            .sort((a, b) => a.event.revision - b.event.revision)
            .map((received) => received.event.eventId),
        );
      }
      const repeated = duplicates([...tasks, ...events]);
      expectThat(
        repeated.join('\n'),
        'invocation.identifier-unpredictability',
        'distinct task and event IDs',
        repeated.length === 0,
      );
      const varying = varyingPositions(sequential);
      expectThat(
        sequential.join('\n'),
        'invocation.identifier-unpredictability',
        `${String(SEQUENTIAL_IDS)} consecutive task IDs differing in at least ${String(Math.ceil(64 / Math.log2(IDENTIFIER_ALPHABET_SIZE)))} characters (they differ in ${String(varying)}: a counter or a clock, not random bits)`,
        varying * Math.log2(IDENTIFIER_ALPHABET_SIZE) >= 64,
      );
      // Warnings first: a sample too small for the battery ends the case as cantTell.
      for (const [label, ids] of [
        ['task IDs', tasks],
        ['event IDs', events],
      ] as const) {
        const bits = estimatedBits(ids);
        if (bits !== undefined && bits < WARN_BELOW_BITS) {
          context.warn(
            'invocation.identifier-unpredictability',
            `${String(ids.length)} ${label} spread about ${String(Math.round(bits))} bits over their characters, well below 128 (e.g. ${ids.slice(0, 3).join(', ')})`,
          );
        }
      }
      expectUnpredictableBits(caller, [
        { label: 'task IDs', ids: tasks, instants: admitted.map(({ createdMs }) => createdMs) },
        { label: 'event IDs', ids: events },
      ]);
    },
  },
  {
    id: 'invocation.replay-same-task',
    scenario: 'replay',
    requirements: ['invocation.replay-same-task'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-28'],
    statement:
      'The identical invocation repeated while the task runs and after it settled, from the same and from another resource and with the arguments formatted differently, returns the original acceptance; the ledger shows the tool ran once.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const key = freshLedgerKey(context, 'invocation.replay');
      const args = { ledgerKey: key, steps: [{ wait: { ms: 150 } }, { complete: {} }] };
      const original = await tasks.start('script', args);
      const options = { requestId: original.invoke.requestId };
      const sibling = await context.callers.sibling(caller);
      const siblingTasks = new TaskSession(context, sibling, target);
      const replays = [
        await tasks.invoke('script', args, options),
        await siblingTasks.invoke('script', args, {
          ...options,
          // Same canonical arguments: other member order and whitespace (interp-28).
          argumentsJson: `{ "steps" : [ { "wait": {"ms": 150} }, {"complete": {}} ],\n "ledgerKey": ${JSON.stringify(key)} }`,
        }),
      ];
      await tasks.awaitSettled(original.accepted.taskId);
      replays.push(await tasks.invoke('script', args, options));
      for (const replay of replays) {
        const accepted = expectAccepted(replay.exchange, 'invocation.replay-same-task', replay.invoke);
        expectThat(
          replay.exchange.reply.xml,
          'invocation.replay-same-task',
          `the original acceptance: task-id='${original.accepted.taskId}' created='${original.accepted.created.text}' revision='0'`,
          accepted.taskId === original.accepted.taskId &&
            accepted.created.epochSeconds === original.accepted.created.epochSeconds &&
            accepted.created.fraction === original.accepted.created.fraction,
        );
        if (accepted.retainUntil.text !== original.accepted.retainUntil.text) {
          context.warn(
            'invocation.replay-same-task',
            `the replayed acceptance changed retain-until (interp-28)`,
          );
        }
      }
      const count = await readLedger(tasks, key, 'invocation.replay-same-task');
      expectThat(
        `count ${String(count)}`,
        'invocation.replay-same-task',
        'the ledger key incremented once (one execution)',
        count === 1,
      );
    },
  },
  {
    id: 'invocation.replay-outlives-retention',
    scenario: 'replay',
    requirements: ['invocation.replay-retention', 'invocation.replay-same-task'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-28', 'interp-29'],
    statement: `Inside the advertised replay window, the identical invocation repeated once the task's deadline and retain-until have passed on the gateway's clock still returns the original acceptance, never new work: the ledger shows one execution. Needs a gateway that keeps a task with a deadline at most ${String(SHORT_RETENTION_MS / 1000)} s past it (registry fixture short-retention; the reference gateway's tasks.retentionSeconds) and a replay window longer than the case.`,
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const info = expectDiscoInfo(await discoInfo(caller, target.jid), 'endpoint-info.disco-info');
      const windowText = info.forms
        .flatMap((form) => form.fields)
        .find((field) => field.var === 'request_replay_seconds')?.values[0];
      const windowMs =
        windowText !== undefined && /^[1-9][0-9]*$/.test(windowText) ? Number(windowText) * 1000 : 0;
      if (windowMs === 0) {
        throw new CannotTell(
          `${target.jid} advertises no valid request_replay_seconds (endpoint-info.replay-window-field), so the replay window is unknown`,
        );
      }
      const clock = await measureGatewayClock(tasks);
      // The tool completes as soon as it runs, within milliseconds even on a loaded machine; a
      // task whose deadline came first shows no execution a replay could repeat, so once more
      // with a longer deadline, and only then can the case not tell.
      const completed = await escalating(REPLAY_DEADLINES_MS, async ({ ms: aheadMs }) => {
        const key = freshLedgerKey(context, 'invocation.replay-retention');
        const args: JsonValue = { ledgerKey: key, steps: [{ complete: {} }] };
        const admitted = Date.now();
        const started = await startShortlyRetained(tasks, clock, args, aheadMs);
        const settled = terminalPayload(await tasks.awaitSettled(started.accepted.taskId));
        if (settled.state === 'completed') return decided({ key, args, admitted, original: started });
        caller.transcript.note(
          `the task ended ${settled.state} before its tool completed (its deadline was ${String(aheadMs)} ms away)`,
        );
        return tooShort(settled.state);
      });
      if (completed.kind === 'exhausted') {
        throw new CannotTell(
          `every task ended before its tool completed (deadlines ${REPLAY_DEADLINES_MS.join(', ')} ms away): a replay's execution would not show`,
        );
      }
      const { key, args, admitted, original } = completed.value;
      const { retainUntil } = original.accepted;
      await passOnGatewayClock(tasks, dateTimeFromMillis(toEpochMillis(retainUntil) + 100));
      const replay = await tasks.invoke('script', args, {
        requestId: original.invoke.requestId,
        ...(original.invoke.deadline === undefined ? {} : { deadline: original.invoke.deadline }),
      });
      if (Date.now() - admitted >= windowMs) {
        throw new MissingFixture(
          `the advertised replay window (${windowText ?? ''} s) ended before the replay: everything has expired, and any answer is allowed (interp-29)`,
        );
      }
      const accepted = expectAccepted(replay.exchange, 'invocation.replay-retention', replay.invoke);
      expectThat(
        replay.exchange.reply.xml,
        'invocation.replay-retention',
        `the original acceptance inside the replay window, after retain-until: task-id='${original.accepted.taskId}'`,
        accepted.taskId === original.accepted.taskId,
      );
      const count = await readLedger(tasks, key, 'invocation.replay-retention');
      expectThat(
        `count ${String(count)}`,
        'invocation.replay-retention',
        'the ledger key incremented once (no second execution)',
        count === 1,
      );
    },
  },
  {
    id: 'invocation.durable-across-crash',
    scenario: 'crash',
    requirements: ['invocation.durable-before-accepted', 'invocation.replay-same-task'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'The gateway is killed with SIGKILL the moment an <accepted/> arrives and started again: the task then answers task-state, the identical invocation returns the original acceptance, and the ledger shows the tool ran at most once. Cannot tell for a gateway the harness does not start unless the SUT file gives external.kill (registry fixture gateway-restart).',
    run: async (context) => {
      const control = context.sutControl;
      if (control === undefined) {
        throw new MissingFixture(
          'needs the harness\'s own federation (native or container, not --provider external), whose component link shows that the gateway died and came back: with "launch" the harness kills it with SIGKILL, with "launch": "external" the SUT file\'s external.kill command does (docs/sut.md)',
        );
      }
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const key = freshLedgerKey(context, 'invocation.crash');
      // Still running (or not yet dispatched) when the kill comes; ends by itself if resumed.
      const args = { ledgerKey: key, steps: [{ wait: { ms: 3_000 } }, { complete: {} }] };
      const original = await tasks.start('script', args, {}, 'invocation.durable-before-accepted');
      await control.crashAndRestart();
      const state = expectTaskState(
        await tasks.state(original.accepted.taskId),
        'invocation.durable-before-accepted',
      );
      expectThat(
        `task ${state.taskId}`,
        'invocation.durable-before-accepted',
        `task-state of the accepted task ${original.accepted.taskId} after the crash`,
        state.taskId === original.accepted.taskId,
      );
      const replay = await tasks.invoke('script', args, {
        requestId: original.invoke.requestId,
      });
      const accepted = expectAccepted(replay.exchange, 'invocation.durable-before-accepted', replay.invoke);
      expectThat(
        replay.exchange.reply.xml,
        'invocation.durable-before-accepted',
        `the original acceptance after the crash: task-id='${original.accepted.taskId}'`,
        accepted.taskId === original.accepted.taskId,
      );
      const count = await readLedger(tasks, key, 'invocation.durable-before-accepted');
      expectThat(
        `count ${String(count)}`,
        'invocation.durable-before-accepted',
        'the tool ran at most once (ledger 0 or 1)',
        count <= 1,
      );
    },
  },
  {
    id: 'invocation.replay-conflict',
    scenario: 'replay',
    requirements: ['invocation.replay-conflict'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-28', 'interp-27'],
    statement:
      'Reusing a request ID with one fingerprint part changed alone (arguments, tool, manifest hash, deadline presence, deadline instant, API version) fails with conflict; the same ID from another caller is an independent request.',
    run: async (context) => {
      const world = requireWorld(context);
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const deadline = instantFromNow(600_000);
      const original = await tasks.start('script', QUICK, { deadline });
      const requestId = original.invoke.requestId;
      const changed: [string, Promise<{ exchange: IqExchange }>][] = [
        [
          'arguments',
          tasks.invoke('script', { steps: [{ complete: { summary: 'x' } }] }, { requestId, deadline }),
        ],
        ['tool', tasks.invoke('script.typed', QUICK, { requestId, deadline })],
        ['manifest hash', tasks.invoke('script', QUICK, { requestId, deadline, hash: STALE_HASH })],
        ['no deadline', tasks.invoke('script', QUICK, { requestId })],
        [
          'another deadline instant',
          tasks.invoke('script', QUICK, {
            requestId,
            deadline: dateTimeFromMillis(Date.parse(deadline.text) + 1_000),
          }),
        ],
      ];
      for (const [part, sent] of changed) {
        const { exchange } = await sent;
        expectThat(
          exchange.reply.xml,
          'invocation.replay-conflict',
          `<conflict/> for the request ID reused with another ${part}`,
          exchange.parsed.type === 'error' && exchange.parsed.error.condition === 'conflict',
        );
        expectStanzaError(exchange, 'invocation.replay-conflict', 'conflict', context);
      }
      // An unknown version is also item-not-found (interp-27): either answer refuses the reuse.
      const version = await tasks.invoke('script', QUICK, {
        requestId,
        deadline,
        apiVersion: `${target.version}.9`,
      });
      expectStanzaError(
        version.exchange,
        'invocation.replay-conflict',
        ['conflict', 'item-not-found'],
        context,
      );
      // The request ID is scoped to the caller: alice's identical request is new work.
      if (world.mayInvoke('remote', world.endpoint(target.jid), 'script')) {
        const remote = await context.callers.remote();
        const remoteTasks = new TaskSession(context, remote, target);
        const independent = await remoteTasks.start(
          'script',
          QUICK,
          { requestId, deadline },
          'invocation.replay-conflict',
        );
        expectThat(
          independent.exchange.reply.xml,
          'invocation.replay-conflict',
          'a task of its own for the same request ID from another caller',
          independent.accepted.taskId !== original.accepted.taskId,
        );
        await remoteTasks.awaitSettled(independent.accepted.taskId);
      }
      await tasks.awaitSettled(original.accepted.taskId);
    },
  },
  {
    id: 'invocation.unauthorized-like-nonexistent',
    scenario: 'equivalence',
    requirements: [
      'invocation.unauthorized-item-not-found',
      'invocation.authorize-first',
      'errors.not-found-equivalence',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-26', 'interp-27', 'interp-42'],
    statement:
      'A nonexistent endpoint, an unknown tool, an endpoint the caller may see but not invoke (also with a stale hash and invalid arguments) and a caller of a domain with no grants all get the same item-not-found.',
    run: async (context) => {
      const world = requireWorld(context);
      const target = conformanceTarget(context);
      const restricted = targetOf(world.restrictedEndpoint);
      const restrictedTool = restricted.manifest.tools[0]?.name;
      if (restrictedTool === undefined) {
        throw new MissingFixture(
          `the fixture world's endpoint ${restricted.jid} (visible to the local caller, not invocable) has no tool to invoke: give its manifest one`,
        );
      }
      const nonexistent: TaskTarget = { ...target, jid: world.nonexistentJid };
      const caller = await context.callers.local();
      const restrictedTasks = new TaskSession(context, caller, restricted);
      const tasks = new TaskSession(context, caller, target);
      const nonexistentTasks = new TaskSession(context, caller, nonexistent);
      const replies = [
        {
          label: `nonexistent ${nonexistent.jid}`,
          to: nonexistent.jid,
          exchange: (await nonexistentTasks.invoke('script', QUICK)).exchange,
        },
        {
          label: `unknown tool at ${target.jid}`,
          to: target.jid,
          exchange: (await tasks.invoke('no.such.tool', QUICK)).exchange,
        },
        {
          label: `restricted ${restricted.jid}`,
          to: restricted.jid,
          exchange: (await restrictedTasks.invoke(restrictedTool, {})).exchange,
        },
        {
          label: `restricted ${restricted.jid} with a stale hash and invalid arguments`,
          to: restricted.jid,
          exchange: (await restrictedTasks.invoke(restrictedTool, [1, 2], { hash: STALE_HASH })).exchange,
        },
      ] as const;
      for (const reply of replies)
        expectStanzaError(
          reply.exchange,
          'invocation.unauthorized-item-not-found',
          'item-not-found',
          context,
        );
      expectIndistinguishable([...replies], 'invocation.unauthorized-item-not-found', context);
      const denied = await context.callers.denied();
      const deniedTasks = new TaskSession(context, denied, target);
      const refused = (await deniedTasks.invoke('script', QUICK)).exchange;
      expectStanzaError(refused, 'security.federation-deny-default', 'item-not-found', context);
      expectSameErrorPayload([replies[0].exchange, refused], 'invocation.unauthorized-item-not-found');
    },
  },
  {
    id: 'invocation.invoke-without-visibility',
    requirements: ['invocation.invoke-without-visibility'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-26'],
    statement:
      'A caller allowed to invoke an endpoint it may not see is admitted with exact pins; a caller allowed to see an endpoint but not invoke it gets item-not-found.',
    run: async (context) => {
      const world = requireWorld(context);
      const hiddenButInvocable = world.endpoints.find(
        (endpoint) =>
          endpoint.active !== undefined &&
          !world.maySee('local', endpoint) &&
          world.mayInvokeAny('local', endpoint),
      );
      if (hiddenButInvocable === undefined) {
        throw new MissingFixture(
          `${world.source} has no endpoint the local caller may invoke without seeing it (registry fixture access-policy): add a hidden endpoint the local caller's grants let it invoke`,
        );
      }
      // Admission is only shown by an <accepted/>, which a gateway may withhold from an endpoint
      // nothing executes: with admin-iq fixtures, who runs it is on the operator checklist.
      world.requireConfirmed(`runtime:${hiddenButInvocable.jid}`);
      const target = targetOf(hiddenButInvocable);
      const tool = target.manifest.tools.find((candidate) =>
        world.mayInvoke('local', hiddenButInvocable, candidate.name),
      );
      if (tool === undefined) {
        throw new MissingFixture(
          `${world.source} grants the local caller no tool of ${hiddenButInvocable.jid} to invoke: grant one`,
        );
      }
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      // Arguments the endpoint's own tool may not accept: admission is about pins and rights, and
      // an empty object is what a schema-less caller would try; a not-acceptable is still not the
      // visibility refusal the requirement forbids.
      const { invoke, exchange } = await tasks.invoke(tool.name, {});
      if (exchange.parsed.type === 'error' && exchange.parsed.error.condition === 'not-acceptable') {
        throw new MissingFixture(
          `${tool.name} at ${target.jid} refuses {} as arguments, and the suite knows no valid ones: give the hidden endpoint a tool that accepts an empty object`,
        );
      }
      const accepted = expectAccepted(exchange, 'invocation.invoke-without-visibility', invoke);
      await tasks.awaitSettled(accepted.taskId);
      const seeOnly = world.restrictedEndpoint;
      const seeOnlyTarget = targetOf(seeOnly);
      const seeOnlyTasks = new TaskSession(context, caller, seeOnlyTarget);
      const seeOnlyTool = seeOnlyTarget.manifest.tools[0]?.name ?? 'x';
      const refused = await seeOnlyTasks.invoke(seeOnlyTool, {});
      expectStanzaError(refused.exchange, 'invocation.invoke-without-visibility', 'item-not-found', context);
    },
  },
  {
    id: 'invocation.validity-after-authorization',
    requirements: ['invocation.authorize-first', 'rules.target-validates-arguments', 'rules.version-pinning'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-27'],
    statement:
      'An authorized caller is told what is wrong: a stale manifest hash gets conflict, an unknown API version item-not-found, schema-invalid arguments not-acceptable, and none of them creates a task (the ledger stays at 0).',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const key = freshLedgerKey(context, 'invocation.validity');
      const args = { ledgerKey: key, steps: [{ complete: {} }] };
      // Admitted, a pin that selects no registered manifest broke version pinning; refused with
      // another condition, the authorized caller was not told what is wrong.
      const pinRequirement = (exchange: IqExchange): RequirementId =>
        exchange.parsed.type === 'error' ? 'invocation.authorize-first' : 'rules.version-pinning';
      const stale = await tasks.invoke('script', args, { hash: STALE_HASH });
      expectStanzaError(stale.exchange, pinRequirement(stale.exchange), 'conflict', context);
      const version = await tasks.invoke('script', args, {
        apiVersion: `${target.version}-absent`,
      });
      expectStanzaError(version.exchange, pinRequirement(version.exchange), 'item-not-found', context);
      const invalid = await tasks.invoke('script', {
        ledgerKey: key,
        steps: [{ explode: {} }],
      });
      expectStanzaError(invalid.exchange, 'rules.target-validates-arguments', 'not-acceptable', context);
      const missing = await tasks.invoke('script', { ledgerKey: key });
      expectStanzaError(missing.exchange, 'rules.target-validates-arguments', 'not-acceptable', context);
      await expectLedgerUntouched(
        tasks,
        key,
        'rules.target-validates-arguments',
        'no execution of a refused invocation (ledger 0)',
      );
    },
  },
  {
    id: 'invocation.required-parts',
    requirements: ['invocation.required-parts'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-27', 'interp-42'],
    statement:
      'An invocation missing its request ID, tool, API version, manifest hash or arguments, or whose arguments are not application/json, is refused with an IQ error and creates no task.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const key = freshLedgerKey(context, 'invocation.parts');
      const args = { ledgerKey: key, steps: [{ complete: {} }] };
      const child = (name: string) => (element: Element) => {
        element.children = element.children.filter((node) => typeof node === 'string' || node.name !== name);
      };
      const attribute = (name: string) => (element: Element) => {
        element.attrs = Object.fromEntries(Object.entries(element.attrs).filter(([key]) => key !== name));
      };
      const edits: ((element: Element) => void)[] = [
        attribute('request-id'),
        attribute('tool'),
        attribute('api-version'),
        child('manifest-hash'),
        child('arguments'),
        (element) => {
          const found = element.getChild('arguments');
          if (found !== undefined) found.attrs['media-type'] = 'text/plain';
        },
      ];
      for (const edit of edits) {
        const exchange = await sendEdited(
          caller,
          target.jid,
          invokeOf(context, target, 'script', args),
          edit,
        );
        expectAnyStanzaError(exchange, 'invocation.required-parts', context);
      }
      await expectLedgerUntouched(
        tasks,
        key,
        'invocation.required-parts',
        'no execution of a refused invocation (ledger 0)',
      );
    },
  },
  {
    id: 'invocation.deadline-refusals',
    requirements: ['cancellation.deadline-format', 'cancellation.deadline-at-commit'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-30', 'interp-31'],
    statement:
      "A deadline without a time zone is refused with bad-request or not-acceptable; a deadline two minutes before the gateway's time (as measured from the times it reports, beyond any clock-skew window) is refused with not-acceptable or admitted and failed with deadline-expired, and the tool never runs.",
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const clock = await measureGatewayClock(tasks);
      const key = freshLedgerKey(context, 'invocation.deadline');
      const args = { ledgerKey: key, steps: [{ complete: {} }] };
      const zoneless = await sendEdited(
        caller,
        target.jid,
        { ...invokeOf(context, target, 'script', args), deadline: instantFromNow(600_000) },
        (element) => {
          const deadline = element.getChild('deadline');
          if (deadline !== undefined) deadline.children = ['2099-01-01T00:00:00'];
        },
      );
      expectStanzaError(zoneless, 'cancellation.deadline-format', ['bad-request', 'not-acceptable'], context);
      const past = await tasks.invoke('script', args, {
        deadline: clock.ago(120_000),
      });
      if (past.exchange.parsed.type === 'error') {
        expectStanzaError(past.exchange, 'cancellation.deadline-at-commit', 'not-acceptable', context);
      } else {
        const accepted = expectAccepted(past.exchange, 'cancellation.deadline-at-commit', past.invoke);
        context.warn(
          'cancellation.deadline-at-commit',
          'a deadline already past was admitted, then failed (interp-30)',
        );
        const history = await tasks.awaitSettled(accepted.taskId);
        const types = history.map((received) => received.event.type);
        expectThat(
          history.map((received) => received.stanza.xml).join('\n'),
          'cancellation.deadline-at-commit',
          'only failed{deadline-expired}: no running state, no progress',
          types.length === 1 &&
            types[0] === 'failed' &&
            history[0]?.event.json.includes('deadline-expired') === true,
        );
      }
      await expectLedgerUntouched(
        tasks,
        key,
        'cancellation.deadline-at-commit',
        'the tool never ran (ledger 0)',
      );
    },
  },
  {
    id: 'invocation.pinned-across-activation',
    // It changes, as the administrator, the directory the read-only cases read: never beside them.
    alongside: false,
    requirements: ['invocation.pin-before-admission', 'manifest-retrieval.retain-pinned-manifest'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      "While a task runs (held by a wait step), the administrator registers and activates another version of its endpoint: task state keeps reporting the API version and manifest hash the task was admitted with, and that exact version's manifest stays retrievable byte for byte, before and after the task settles (the original version is activated again and the new one removed afterwards). Cannot tell without administrator access (registry fixture multi-version-endpoint).",
    run: async (context) => {
      if (!hasAdmin(context)) {
        throw new MissingFixture(
          'needs administrator access to register and activate another version of the conformance endpoint while a task runs (registry fixture multi-version-endpoint): claim Administrative Provisioning, advertise #admin and name the adminJid in the SUT file',
        );
      }
      await withRestore(context, async (restorer) => {
        const target = conformanceTarget(context);
        const caller = await context.callers.local();
        const tasks = new TaskSession(context, caller, target);
        const admin = await adminFor(context);
        const expectPinned = async (taskId: string, when: string, next: TaskTarget): Promise<void> => {
          const exchange = await tasks.state(taskId);
          const state = expectTaskState(exchange, 'invocation.pin-before-admission');
          expectThat(
            exchange.reply.xml,
            'invocation.pin-before-admission',
            `${when}, api-version='${target.version}' and the manifest hash ${target.hash.value} the task was admitted with (not ${next.version})`,
            state.apiVersion === target.version && state.manifestHash.value === target.hash.value,
          );
          // Retrievable by its exact version for as long as the task is retained.
          expectServedManifest(
            await manifestRequest(caller, target.jid, target.version),
            'manifest-retrieval.retain-pinned-manifest',
            target.manifest,
          );
        };
        const { task, value: next } = await whileHeld(
          tasks,
          async (held) => {
            restorer.reactivateAtEnd({ jid: target.jid, version: target.version, hash: target.hash });
            const version = await registerTargetVersion(admin, target, freshVersion(context, '1.0.1'));
            restorer.removeVersionAtEnd(version.jid, version.version);
            await activateTarget(admin, version);
            await expectPinned(held.accepted.taskId, `with ${version.version} active`, version);
            return version;
          },
          {},
          {
            // A task that settled too early is tried again on the version it was pinned to.
            beforeRetry: () => activateTarget(admin, target),
          },
        );
        await tasks.awaitSettled(task.accepted.taskId);
        await expectPinned(task.accepted.taskId, 'after the task settled', next);
      });
    },
  },
  ...crashOnTheWireCases,
  ...linkFaultCases,
  ...modelCases,
]);
