/**
 * #task-recovery (with #task-message-routing's delivery independence): task state with every
 * attribute from a sibling resource that received no event, result-available only when terminal,
 * task-result only for terminal tasks (unexpected-request before) holding the terminal event's
 * payload, malformed task IDs refused with bad-request, and another caller's task — another
 * account of the same domain or a federated one — answered like a task that does not exist, for
 * every task operation, running and settled; on a gateway configured for a short retention, a
 * task past its retain-until answered like one that does not exist too.
 */
import type { Caller, IqExchange } from '../../../harness/driver/index.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import {
  compareInstants,
  dateTimeFromMillis,
  toEpochMillis,
  type XmppDateTime,
} from '../../../protocol/datetime.ts';
import {
  buildCancel,
  buildProvideInput,
  type Accepted,
  type TaskState,
} from '../../../protocol/stanza/index.ts';
import { isTerminal } from '../../../protocol/task-states.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectIndistinguishable, expectStanzaError, expectThat } from '../../framework/expect.ts';
import { CannotTell, MissingFixture, NotApplicable } from '../../framework/verdicts.ts';
import { requireWorld } from '../../fixtures/reference-world.ts';
import {
  instantFromNow,
  measureGatewayClock,
  passOnGatewayClock,
  SHORT_RETENTION_MS,
  startShortlyRetained,
} from '../support/gateway-clock.ts';
import { decided, escalating, tooShort } from '../support/escalating.ts';
import { HOLDS_MS, whileHeld } from '../support/held-task.ts';
import {
  offeredTaskOperations,
  operationIqType,
  rawTaskOperation,
  type TaskOperation,
} from '../support/raw-operations.ts';
import { localPeer } from '../support/task-accounts.ts';
import { terminalPayload } from '../support/task-events.ts';
import { expectTaskResult, expectTaskState } from '../support/task-replies.ts';
import { freshRequestId, TaskSession } from '../support/task-session.ts';
import { conformanceTarget, type TaskTarget } from '../support/task-target.ts';
import { serverRestartCases } from './server-restart.ts';

/**
 * The answers of a gateway that keeps a task past its retain-until: its state and result as the
 * task settled (events.queryable-until-retain-until asks that much until then, and nothing
 * allows a kept task to change afterwards).
 */
function expectStillSettled(kept: readonly IqExchange[], settled: string): void {
  for (const exchange of kept) {
    const payload = exchange.parsed.type === 'result' ? exchange.parsed.payload : undefined;
    const { state } =
      payload?.name === 'task-result'
        ? expectTaskResult(exchange, 'events.queryable-until-retain-until')
        : expectTaskState(exchange, 'events.queryable-until-retain-until');
    expectThat(
      exchange.reply.xml,
      'events.queryable-until-retain-until',
      `the task as it settled (${settled}), past retain-until as before it`,
      state === settled,
    );
  }
}

/** Beyond retain-until on the gateway's clock before the case looks. */
const EXPIRY_MARGIN_MS = 100;
/** How long after retain-until a gateway may still answer for the task before the case gives up. */
const GRACE_MS = 3_000;
/** A script that completes at once. */
const QUICK = { steps: [{ complete: {} }] };

function sameInstant(a: XmppDateTime | undefined, b: XmppDateTime | undefined): boolean {
  return a !== undefined && b !== undefined && compareInstants(a, b) === 0;
}

/** A task-state answer and the reply it was read from. */
interface ReadState {
  readonly state: TaskState;
  readonly replyXml: string;
}

/** Task state as a resource that saw no event reads it: every attribute the invocation fixed (#task-recovery). */
async function expectFullStateWhileRunning(
  siblingTasks: TaskSession,
  accepted: Accepted,
  deadline: XmppDateTime,
): Promise<ReadState> {
  const { target } = siblingTasks;
  const exchange = await siblingTasks.state(accepted.taskId);
  const running = expectTaskState(exchange, 'task-recovery.state-contents');
  const attributes: readonly [expected: string, holds: boolean][] = [
    [`task-id='${accepted.taskId}'`, running.taskId === accepted.taskId],
    [`endpoint='${target.jid}'`, running.endpoint === target.jid],
    [`api-version='${target.version}'`, running.apiVersion === target.version],
    [
      `the pinned manifest hash ${target.hash.value}`,
      running.manifestHash.algo === target.hash.algo && running.manifestHash.value === target.hash.value,
    ],
    [`created at ${accepted.created.text}`, sameInstant(running.created, accepted.created)],
    [`deadline at ${deadline.text}`, sameInstant(running.deadline, deadline)],
    [
      `retain-until no earlier than the accepted ${accepted.retainUntil.text} (interp-32)`,
      compareInstants(running.retainUntil, accepted.retainUntil) >= 0,
    ],
  ];
  for (const [expected, holds] of attributes) {
    expectThat(exchange.reply.xml, 'task-recovery.state-contents', expected, holds);
  }
  return { state: running, replyXml: exchange.reply.xml };
}

/** Before the task is terminal: result-available is false and task-result answers unexpected-request. */
async function expectNoResultYet(
  context: CaseContext,
  siblingTasks: TaskSession,
  taskId: string,
  running: ReadState,
): Promise<void> {
  expectThat(
    running.replyXml,
    'task-recovery.result-availability',
    "result-available='false' while not terminal",
    !running.state.resultAvailable,
  );
  const early = await siblingTasks.result(taskId);
  // The task may have settled in between; only a non-terminal answer is judged.
  if (early.parsed.type === 'error')
    expectStanzaError(early, 'task-recovery.result-only-terminal', 'unexpected-request', context);
}

/** Once settled: the terminal state and revision with a result, and task-result equal to the terminal event. */
async function expectSettlementRecovered(
  siblingTasks: TaskSession,
  taskId: string,
  terminal: ReturnType<typeof terminalPayload>,
): Promise<void> {
  const settledExchange = await siblingTasks.state(taskId);
  const settled = expectTaskState(settledExchange, 'task-recovery.state-contents');
  expectThat(
    settledExchange.reply.xml,
    'task-recovery.result-availability',
    `state='${terminal.state}' revision='${String(terminal.revision)}' result-available='true'`,
    settled.state === terminal.state && settled.revision === terminal.revision && settled.resultAvailable,
  );
  const resultExchange = await siblingTasks.result(taskId);
  const result = expectTaskResult(resultExchange, 'task-recovery.result-only-terminal');
  expectThat(
    resultExchange.reply.xml,
    'task-recovery.result-only-terminal',
    `the terminal state, revision and payload of the terminal event: ${canonicalJson(terminal.payload)}`,
    result.state === terminal.state &&
      result.revision === terminal.revision &&
      canonicalJson(parseStrictJson(result.json)) === canonicalJson(terminal.payload),
  );
}

/**
 * The positive control: the peer may invoke and recover its own task, so a refusal of the owner's
 * task is about whose task it is.
 */
async function expectPeerRecoversOwnTask(peerTasks: TaskSession): Promise<void> {
  const own = await peerTasks.start('script', QUICK, {}, 'task-recovery.caller-authorization');
  await peerTasks.awaitSettled(own.accepted.taskId);
  expectTaskResult(await peerTasks.result(own.accepted.taskId), 'task-recovery.caller-authorization');
}

/** Callers other than the task's, the operations the endpoint offers, and a task ID that names no task. */
interface Strangers {
  readonly target: TaskTarget;
  readonly others: readonly { readonly label: string; readonly caller: Caller }[];
  readonly operations: readonly TaskOperation[];
  /** Never issued: both the task ID of the nonexistent task and the request ID of an input. */
  readonly unknown: string;
}

/** One task operation by a stranger, on the task named (carrying the revision it expects). */
function sendAsStranger(
  strangers: Strangers,
  caller: Caller,
  operation: TaskOperation,
  taskId: string,
  revision: number,
): Promise<IqExchange> {
  const element =
    operation === 'cancel'
      ? buildCancel({ taskId, expectedRevision: revision })
      : operation === 'provide-input'
        ? buildProvideInput({
            taskId,
            requestId: strangers.unknown,
            expectedRevision: revision,
            inputJson: 'true',
          })
        : rawTaskOperation(operation, taskId);
  return caller.exchangeIq(strangers.target.jid, operationIqType(operation), element);
}

/** Every stranger's every operation on the caller's task gets item-not-found, exactly as on no task. */
async function expectRefusedToStrangers(
  context: CaseContext,
  strangers: Strangers,
  taskId: string,
  revision: number,
  phase: string,
): Promise<void> {
  for (const other of strangers.others) {
    for (const operation of strangers.operations) {
      const foreign = await sendAsStranger(strangers, other.caller, operation, taskId, revision);
      const missing = await sendAsStranger(strangers, other.caller, operation, strangers.unknown, revision);
      // Served, the stranger broke authorization; refused with another condition than a missing
      // task gets, it learnt that the task exists.
      const broken =
        foreign.parsed.type === 'error'
          ? 'task-recovery.indistinguishable-not-found'
          : 'task-recovery.caller-authorization';
      expectStanzaError(foreign, broken, 'item-not-found', context);
      expectIndistinguishable(
        [
          {
            label: `${operation} by ${other.label} of the caller's ${phase} task`,
            to: strangers.target.jid,
            exchange: foreign,
          },
          {
            label: `${operation} by ${other.label} of a task that does not exist`,
            to: strangers.target.jid,
            exchange: missing,
          },
        ],
        'task-recovery.indistinguishable-not-found',
        context,
      );
    }
  }
}

export const taskRecoverySuite = defineSuite('task-recovery', 'Task Recovery', [
  {
    id: 'task-recovery.state-and-result-from-sibling',
    requirements: [
      'task-recovery.state-contents',
      'task-recovery.result-availability',
      'task-recovery.result-only-terminal',
      'task-message-routing.delivery-independent',
      'events.queryable-until-retain-until',
    ],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-03', 'interp-04', 'interp-32', 'interp-39'],
    statement:
      'Another resource of the caller, which received no event, recovers the task: while running, state with every attribute, no result available and unexpected-request for the result; once settled, the terminal state and revision, result-available and a task-result equal to the terminal event.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const sibling = await context.callers.sibling(caller);
      const siblingTasks = new TaskSession(context, sibling, target);
      const deadline = instantFromNow(600_000);
      // Held by a wait as short as the checks allow, longer only when it settled before them.
      const held = await escalating(HOLDS_MS, async ({ ms }) => {
        const { accepted } = await tasks.start(
          'script',
          { steps: [{ wait: { ms } }, { complete: { structuredContent: { value: 'recovered' } } }] },
          { deadline },
        );
        const running = await expectFullStateWhileRunning(siblingTasks, accepted, deadline);
        if (!isTerminal(running.state.state)) {
          await expectNoResultYet(context, siblingTasks, accepted.taskId, running);
          return decided(accepted);
        }
        await tasks.awaitSettled(accepted.taskId);
        return tooShort(undefined);
      });
      if (held.kind === 'exhausted')
        throw new CannotTell(
          `a task held running by a wait of ${String(held.ms)} ms had settled when its sibling first asked: the machine is too slow to tell`,
        );
      const accepted = held.value;
      const terminal = terminalPayload(await tasks.awaitSettled(accepted.taskId));
      expectThat(
        `${String(sibling.events.all(accepted.taskId).length)} events`,
        'task-message-routing.delivery-independent',
        'no event at the sibling (it proves recovery without events)',
        sibling.events.all(accepted.taskId).length === 0,
      );
      await expectSettlementRecovered(siblingTasks, accepted.taskId, terminal);
    },
  },
  {
    id: 'task-recovery.failed-result-retained',
    requirements: ['task-recovery.result-availability', 'task-recovery.result-only-terminal'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-39'],
    statement:
      'A failed task also has its result available: the task-result holds the failed state and the error object of the failed event.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const { accepted } = await tasks.start('script', {
        steps: [{ fail: { code: 'org.example.suite:broken', message: 'Broken.', retryable: false } }],
      });
      const terminal = terminalPayload(await tasks.awaitSettled(accepted.taskId));
      const stateExchange = await tasks.state(accepted.taskId);
      const state = expectTaskState(stateExchange, 'task-recovery.result-availability');
      expectThat(
        stateExchange.reply.xml,
        'task-recovery.result-availability',
        "state='failed' result-available='true'",
        state.state === 'failed' && state.resultAvailable,
      );
      const exchange = await tasks.result(accepted.taskId);
      const result = expectTaskResult(exchange, 'task-recovery.result-only-terminal');
      expectThat(
        exchange.reply.xml,
        'task-recovery.result-only-terminal',
        `state='failed' with ${canonicalJson(terminal.payload)}`,
        result.state === 'failed' &&
          canonicalJson(parseStrictJson(result.json)) === canonicalJson(terminal.payload),
      );
    },
  },
  {
    id: 'task-recovery.malformed-task-id',
    requirements: ['task-recovery.malformed-id-bad-request', 'invocation.identifier-grammar'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-42'],
    statement:
      'A task ID outside the identifier grammar (too short, a character outside the unreserved set, too long) gets bad-request from task-state and task-result, and from cancel and provide-input where the endpoint offers them.',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      for (const operation of await offeredTaskOperations(caller, target)) {
        for (const taskId of ['short', `${'a'.repeat(30)}/x`, 'a'.repeat(129)]) {
          const exchange = await caller.exchangeIq(
            target.jid,
            operationIqType(operation),
            rawTaskOperation(operation, taskId),
          );
          expectStanzaError(exchange, 'task-recovery.malformed-id-bad-request', 'bad-request', context);
        }
      }
    },
  },
  {
    id: 'task-recovery.other-caller-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['task-recovery.caller-authorization', 'task-recovery.indistinguishable-not-found'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-26', 'interp-42'],
    statement:
      "Another account of the task caller's own domain (holding the same grants) and a federated one asking for a task's state or result, cancelling it or answering its input (where the endpoint offers these), while the task runs (held by a wait step) and after it settled, get exactly what a task ID that names no task gets: item-not-found. Operations are authorized by bare JID, not by domain; the caller itself meanwhile reads state and result, and the same-domain account reads its own task's.",
    run: async (context) => {
      const world = requireWorld(context);
      const target = conformanceTarget(context);
      const owner = await context.callers.local();
      const ownerTasks = new TaskSession(context, owner, target);
      const peer = await localPeer(context);
      const peerTasks = new TaskSession(context, peer, target);
      if (!world.mayInvoke('localPeer', world.endpoint(target.jid), 'script')) {
        throw new MissingFixture(
          `${world.source} does not let ${peer.bareJid} invoke ${target.jid}: the case needs an account of the local caller's domain with the same rights, so that only the bare JID can refuse it`,
        );
      }
      await expectPeerRecoversOwnTask(peerTasks);
      const strangers: Strangers = {
        target,
        others: [
          { label: `${peer.bareJid} (same domain)`, caller: peer },
          {
            label: 'a federated account',
            caller: world.mayInvoke('remote', world.endpoint(target.jid), 'script')
              ? await context.callers.remote()
              : await context.callers.denied(),
          },
        ],
        operations: await offeredTaskOperations(owner, target),
        unknown: freshRequestId(context),
      };
      const expectRefused = (taskId: string, revision: number, phase: string): Promise<void> =>
        expectRefusedToStrangers(context, strangers, taskId, revision, phase);
      const { task } = await whileHeld(ownerTasks, async ({ accepted, running }) => {
        await expectRefused(accepted.taskId, running.event.revision, 'running');
        expectTaskState(await ownerTasks.state(accepted.taskId), 'task-recovery.caller-authorization');
      });
      const history = await ownerTasks.awaitSettled(task.accepted.taskId);
      await expectRefused(task.accepted.taskId, terminalPayload(history).revision, 'settled');
      expectTaskResult(await ownerTasks.result(task.accepted.taskId), 'task-recovery.caller-authorization');
    },
  },
  {
    id: 'task-recovery.administrator-no-task-authority',
    // It acts as the administrator, whose session the read-only cases' directory reads would
    // meet: never beside them.
    alongside: false,
    scenario: 'equivalence',
    requirements: ['task-recovery.caller-authorization', 'task-recovery.indistinguishable-not-found'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-19'],
    statement:
      "The gateway's administrator asking for the local caller's task's state or result, cancelling it or answering its input (where the endpoint offers these), while it runs and after it settled, gets exactly what a task ID that names no task gets: item-not-found. Administrative authority is over registrations, not over other callers' tasks; the caller itself meanwhile reads state and result.",
    run: async (context) => {
      if (context.sut.adminJid === undefined) {
        throw new NotApplicable('the SUT names no administrator (adminJid)');
      }
      const target = conformanceTarget(context);
      const owner = await context.callers.local();
      const ownerTasks = new TaskSession(context, owner, target);
      const strangers: Strangers = {
        target,
        others: [{ label: 'the administrator', caller: await context.callers.admin() }],
        operations: await offeredTaskOperations(owner, target),
        unknown: freshRequestId(context),
      };
      const { task } = await whileHeld(ownerTasks, async ({ accepted, running }) => {
        await expectRefusedToStrangers(
          context,
          strangers,
          accepted.taskId,
          running.event.revision,
          'running',
        );
        expectTaskState(await ownerTasks.state(accepted.taskId), 'task-recovery.caller-authorization');
      });
      const history = await ownerTasks.awaitSettled(task.accepted.taskId);
      await expectRefusedToStrangers(
        context,
        strangers,
        task.accepted.taskId,
        terminalPayload(history).revision,
        'settled',
      );
      expectTaskResult(await ownerTasks.result(task.accepted.taskId), 'task-recovery.caller-authorization');
    },
  },
  {
    id: 'task-recovery.expired-like-nonexistent',
    scenario: 'equivalence',
    requirements: ['task-recovery.indistinguishable-not-found', 'events.queryable-until-retain-until'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-19', 'interp-32'],
    statement: `A completed task answers state and result until its retain-until; once that has passed on the gateway's clock, a gateway that no longer answers for it gives exactly what a task ID that names no task gets. Needs a gateway that keeps a task with a deadline at most ${String(SHORT_RETENTION_MS / 1000)} s past it (registry fixture short-retention; the reference gateway's tasks.retentionSeconds); one that still answers ${String(GRACE_MS / 1000)} s after retain-until (allowed: retention is a minimum) must answer with the task as it settled.`,
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const clock = await measureGatewayClock(tasks);
      // A caller deadline keeps the effective deadline, and so retain-until, close.
      const { accepted } = await startShortlyRetained(tasks, clock, QUICK);
      const retainUntil = accepted.retainUntil;
      const history = await tasks.awaitSettled(accepted.taskId);
      const before = await tasks.state(accepted.taskId);
      // Judged only when the reply was certainly sent before retain-until on the gateway's clock.
      if (Date.now() < clock.notBefore(retainUntil)) {
        const state = expectTaskState(before, 'events.queryable-until-retain-until');
        expectThat(
          before.reply.xml,
          'events.queryable-until-retain-until',
          'the settled state before retain-until',
          state.state === terminalPayload(history).state,
        );
      }
      // Time passes on the gateway's clock: a tool waiting until just past retain-until, then in
      // steps through the grace a gateway may take to forget the task.
      const unknown = freshRequestId(context);
      const pairs = [
        ['state', (id: string) => tasks.state(id)],
        ['result', (id: string) => tasks.result(id)],
      ] as const;
      let wakeAt = toEpochMillis(retainUntil) + EXPIRY_MARGIN_MS;
      const giveUpAt = clock.reachedBy(retainUntil) + GRACE_MS;
      // The last round's answers that were results: the task still kept.
      const kept: IqExchange[] = [];
      for (;;) {
        await passOnGatewayClock(tasks, dateTimeFromMillis(wakeAt));
        let compared = 0;
        kept.length = 0;
        for (const [label, send] of pairs) {
          const expired = await send(accepted.taskId);
          // Keeping a task longer than promised is allowed; only a refusal must look like "none".
          if (expired.parsed.type === 'result') {
            kept.push(expired);
            continue;
          }
          compared += 1;
          expectStanzaError(expired, 'task-recovery.indistinguishable-not-found', 'item-not-found', context);
          expectIndistinguishable(
            [
              { label: `${label} of a task past retain-until`, to: target.jid, exchange: expired },
              {
                label: `${label} of a task that does not exist`,
                to: target.jid,
                exchange: await send(unknown),
              },
            ],
            'task-recovery.indistinguishable-not-found',
            context,
          );
        }
        if (compared > 0) return;
        if (Date.now() >= giveUpAt) break;
        wakeAt = toEpochMillis(clock.ahead(400));
      }
      // The permitted alternative (retention is a minimum, #events): still answering for the task
      // past the grace. Then what it answers must still be the task as it settled; that it will
      // later look like a task that never existed cannot be seen in a case's time.
      expectStillSettled(kept, terminalPayload(history).state);
      caller.transcript.note(
        `task ${accepted.taskId} still answered ${String(GRACE_MS / 1000)} s past its retain-until ${retainUntil.text} (allowed: retention is a minimum), as it settled`,
      );
    },
  },
  ...serverRestartCases,
]);
